{{/*
Everything one deployable needs, in one call from the umbrella chart:

  {{- range $name, $svc := .Values.services }}
  {{- include "svc-lib.component" (dict "root" $ "name" $name "svc" $svc) }}
  {{- end }}

Renders nothing for a disabled service. Each object starts with a document separator.
*/}}
{{- define "svc-lib.component" -}}
{{- if .svc.enabled }}
---
{{ include "svc-lib.serviceAccount" . }}
---
{{ include "svc-lib.configMap" . }}
{{- if and .svc.database.enabled (include "svc-lib.managedDbUrl" .) }}
---
{{ include "svc-lib.dbSecret" . }}
{{- end }}
---
{{ include "svc-lib.service" . }}
{{- if and (include "svc-lib.persistenceEnabled" .) (not (include "svc-lib.persistence" . | fromYaml).existingClaim) }}
---
{{ include "svc-lib.pvc" . }}
{{- end }}
---
{{ include "svc-lib.deployment" . }}
{{- if .svc.autoscaling.enabled }}
---
{{ include "svc-lib.hpa" . }}
{{- end }}
{{- if .svc.pdb.enabled }}
---
{{ include "svc-lib.pdb" . }}
{{- end }}
{{- if .root.Values.networkPolicy.enabled }}
---
{{ include "svc-lib.networkPolicy" . }}
{{- end }}
{{- if include "svc-lib.migrationJobEnabled" . }}
---
{{ include "svc-lib.migration" . }}
{{- end }}
{{- if and .root.Values.ingress.enabled .svc.public.paths }}
---
{{ include "svc-lib.ingress" . }}
{{- end }}
{{- if and .root.Values.httpRoute.enabled .svc.public.paths }}
---
{{ include "svc-lib.httpRoute" . }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
Checks across values that a JSON schema cannot express (root context); each failure names the value to fix.
*/}}
{{- define "svc-lib.validate" -}}
{{- $root := . -}}
{{- $paths := dict -}}
{{- range $name, $svc := .Values.services -}}
{{- if $svc.enabled -}}
{{- $a := $svc.autoscaling -}}
{{- if and $a.enabled (gt (int $a.minReplicas) (int $a.maxReplicas)) -}}
{{- fail (printf "services.%s.autoscaling: minReplicas (%v) is greater than maxReplicas (%v)" $name $a.minReplicas $a.maxReplicas) -}}
{{- end -}}
{{- if and $a.enabled (not $a.targetCPUUtilizationPercentage) (not $a.targetMemoryUtilizationPercentage) -}}
{{- fail (printf "services.%s.autoscaling: set targetCPUUtilizationPercentage and/or targetMemoryUtilizationPercentage" $name) -}}
{{- end -}}
{{- if and $svc.kafka (not $root.Values.infra.enabled) (not $root.Values.kafka.brokers) -}}
{{- fail (printf "kafka.brokers is empty, but services.%s uses Kafka: set kafka.brokers (host:port,...) or infra.enabled=true (dev only)" $name) -}}
{{- end -}}
{{- if and (eq $svc.kind "http") (hasKey $svc.ports "grpc") -}}
{{- fail (printf "services.%s: kind http serves no gRPC; remove ports.grpc (or use kind grpc)" $name) -}}
{{- end -}}
{{- if and (eq $svc.kind "grpc") (not (hasKey $svc.ports "grpc")) -}}
{{- fail (printf "services.%s: kind grpc needs ports.grpc" $name) -}}
{{- end -}}
{{- include "svc-lib.validatePersistence" (dict "root" $root "name" $name "svc" $svc) -}}
{{- $secretEnvNames := dict -}}
{{- range $i, $e := (default (list) (index $svc "secretEnv")) -}}
{{- $block := index $root.Values $e.from -}}
{{- if not (and (kindIs "map" $block) (hasKey $block "existingSecret") (hasKey $block "key") (hasKey $block "value")) -}}
{{- fail (printf "services.%s.secretEnv[%d].from: %q is not a top-level values block with existingSecret, key and value" $name $i $e.from) -}}
{{- end -}}
{{- if hasKey $secretEnvNames $e.name -}}
{{- fail (printf "services.%s.secretEnv: %s is listed twice" $name $e.name) -}}
{{- end -}}
{{- $_ := set $secretEnvNames $e.name true -}}
{{- end -}}
{{- range $svc.public.paths -}}
{{- if hasKey $paths . -}}
{{- fail (printf "public path %s is claimed by both services.%s and services.%s" . (get $paths .) $name) -}}
{{- end -}}
{{- $_ := set $paths . $name -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and $root.Values.kafka.sasl.mechanism (not $root.Values.infra.enabled) (not $root.Values.kafka.sasl.existingSecret) (not $root.Values.kafka.sasl.password) -}}
{{- fail "kafka.sasl.mechanism is set: give the password as kafka.sasl.existingSecret (recommended) or kafka.sasl.password" -}}
{{- end -}}
{{- if and $root.Values.kafka.sasl.mechanism (not $root.Values.kafka.sasl.username) (not $root.Values.infra.enabled) -}}
{{- fail "kafka.sasl.mechanism is set: kafka.sasl.username is required" -}}
{{- end -}}
{{- if $root.Values.ingress.enabled -}}
{{- $primary := include "svc-lib.primaryIngress" $root -}}
{{- range $name, $svc := $root.Values.services -}}
{{- if and $svc.enabled $svc.public.paths (ne $name $primary) -}}
{{- range $key, $_ := (default (dict) $svc.public.ingressAnnotations) -}}
{{- if include "svc-lib.isCertManagerAnnotation" $key -}}
{{- fail (printf "services.%s.public.ingressAnnotations: %s would make cert-manager issue a second Certificate for the Secret of ingress.tls, which every Ingress shares; set it in ingress.annotations (cert-manager annotations go on the %s Ingress only, see ingress.primaryService)" $name $key $primary) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and $root.Values.httpRoute.enabled (not $root.Values.httpRoute.parentRefs) -}}
{{- fail "httpRoute.enabled: httpRoute.parentRefs must name the Gateway to attach to" -}}
{{- end -}}
{{- end -}}
