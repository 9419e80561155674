{{/*
Settings that only tests and local development may turn on, which every pod of this chart refuses at start-up
(NODE_ENV=production): rendering fails instead of pods crash-looping. partner's PARTNER_WEBHOOK_INSECURE_URLS lets
webhooks reach http and loopback, private and link-local addresses (its SSRF guard off), in `env` or `extraEnv`.
Root context. The truthy spellings are those of zod's stringbool, which the service parses the setting with.
*/}}
{{- define "svc.validateInsecureSettings" -}}
{{- $truthy := list "true" "1" "yes" "on" "y" "enabled" -}}
{{- range $name, $svc := .Values.services -}}
{{- if $svc.enabled -}}
{{- $values := dict -}}
{{- range $key, $value := (default (dict) $svc.env) }}{{ $_ := set $values $key (toString $value) }}{{ end -}}
{{- range (default (list) $svc.extraEnv) }}{{ if hasKey . "value" }}{{ $_ := set $values .name (toString .value) }}{{ end }}{{ end -}}
{{- with (get $values "PARTNER_WEBHOOK_INSECURE_URLS") -}}
{{- if has (lower (trim .)) $truthy -}}
{{- fail (printf "services.%s: PARTNER_WEBHOOK_INSECURE_URLS=%s is for tests and local development only (webhooks could reach loopback, private and link-local addresses); the service refuses to start with it in production: remove it" $name .) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
