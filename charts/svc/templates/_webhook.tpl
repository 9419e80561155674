{{/*
Checks of webhookSecretsKeys (root context), which the generic library chart cannot know about: WEBHOOK_SECRETS_KEYS
is what webhook-ingress seals the providers' signing secrets with (docs/decisions/0014), and with NODE_ENV=production
(every pod of this chart) it refuses to start without it. So instead of pods crash-looping on a missing Secret:
  - rendering fails while webhook-ingress (or any service reading the block through secretEnv) is enabled and neither
    webhookSecretsKeys.existingSecret nor webhookSecretsKeys.value is set, saying how to make a key. The chart never
    generates one: a key that changed on the next upgrade would make every stored secret unreadable;
  - webhook-ingress must receive the variable (its secretEnv entry, or an extraEnv entry of your own);
  - key ids in `value` must be unique (values.schema.json checks each entry's shape; a regex cannot see duplicates).
*/}}
{{- define "svc.validateWebhookSecretsKeys" -}}
{{- $k := .Values.webhookSecretsKeys -}}
{{- $services := .Values.services -}}
{{- $ingress := index $services "webhook-ingress" -}}
{{- $readers := list -}}
{{- range $name, $svc := $services -}}
{{- if $svc.enabled -}}
{{- range (default (list) (index $svc "secretEnv")) -}}
{{- if eq .from "webhookSecretsKeys" -}}
{{- $readers = append $readers (printf "services.%s" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and $ingress $ingress.enabled -}}
{{- $names := list -}}
{{- range (concat (default (list) (index $ingress "secretEnv")) (default (list) $ingress.extraEnv)) -}}
{{- $names = append $names .name -}}
{{- end -}}
{{- if not (has "WEBHOOK_SECRETS_KEYS" $names) -}}
{{- fail "services.webhook-ingress is enabled but gets no WEBHOOK_SECRETS_KEYS, without which it does not start: keep its secretEnv entry {name: WEBHOOK_SECRETS_KEYS, from: webhookSecretsKeys} (or provide the variable through services.webhook-ingress.extraEnv)" -}}
{{- end -}}
{{- end -}}
{{- if and $readers (not $k.existingSecret) (not $k.value) -}}
{{- $secret := include "svc-lib.secretBlockName" (dict "root" . "from" "webhookSecretsKeys") -}}
{{- fail (printf `webhookSecretsKeys: %s needs WEBHOOK_SECRETS_KEYS (the keys that encrypt the providers' signing secrets; it refuses to start without them). Set webhookSecretsKeys.existingSecret to a Secret you manage holding them under key %s (recommended), e.g. kubectl -n %s create secret generic %s --from-literal=%s="k1:$(openssl rand -base64 32)", or webhookSecretsKeys.value for a throwaway install (stored in the Helm release). Format: comma-separated <keyId>:<base64 of 32 random bytes>, the first one encrypts. Generate a key with: node -e "console.log('k1:'+require('crypto').randomBytes(32).toString('base64'))" (or: echo "k1:$(openssl rand -base64 32)"). Keep it safe: without it the stored secrets cannot be read (docs/deploy.md, Secrets)` (join ", " $readers) $k.key .Release.Namespace $secret $k.key) -}}
{{- end -}}
{{- if and $readers $k.value (not $k.existingSecret) -}}
{{- $ids := list -}}
{{- range (splitList "," $k.value) -}}
{{- $id := trim (first (splitList ":" .)) -}}
{{- if has $id $ids -}}
{{- fail (printf "webhookSecretsKeys.value: key id %q appears twice; every <keyId> must be unique (the first key encrypts, each sealed value names the id of its key)" $id) -}}
{{- end -}}
{{- $ids = append $ids $id -}}
{{- end -}}
{{- end -}}
{{- end -}}
