{{/*
Environment of one service (component context): a ConfigMap with the non-secret settings (envFrom), and, when the
chart owns the DSN (database.url, or the dev MariaDB), the <name>-db Secret holding DB_URL. The Deployment's
checksum/config and checksum/secret annotations hash the same data, so a change rolls the pods.
*/}}
{{- define "svc-lib.configMap" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "svc-lib.name" . }}-env
  labels:
    {{- include "svc-lib.labels" . | nindent 4 }}
data:
  {{- include "svc-lib.envData" . | nindent 2 }}
{{- end -}}

{{- define "svc-lib.dbSecret" -}}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "svc-lib.dbSecretName" . }}
  labels:
    {{- include "svc-lib.labels" . | nindent 4 }}
type: Opaque
data:
  {{ .svc.database.secretKey }}: {{ include "svc-lib.managedDbUrl" . | b64enc | quote }}
{{- end -}}

{{/* Release-wide Secrets the chart owns (root context): the Kafka SASL
     password and each values block an enabled service reads through `secretEnv` (<fullname>-<block in kebab case>,
     e.g. svc-webhook-secrets-keys), each only when given as a value rather than as an existingSecret. */}}
{{- define "svc-lib.sharedSecrets" -}}
{{- if include "svc-lib.kafkaSecretManaged" . }}
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "svc-lib.kafkaSecretName" . }}
  labels:
    {{- include "svc-lib.commonLabels" . | nindent 4 }}
type: Opaque
data:
  {{ .Values.kafka.sasl.passwordKey }}: {{ .Values.kafka.sasl.password | b64enc | quote }}
{{- end }}
{{- range $from := include "svc-lib.secretEnvBlocks" . | fromYamlArray }}
{{- $ctx := dict "root" $ "from" $from }}
{{- if include "svc-lib.secretBlockManaged" $ctx }}
{{- $block := index $.Values $from }}
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "svc-lib.secretBlockName" $ctx }}
  labels:
    {{- include "svc-lib.commonLabels" $ | nindent 4 }}
type: Opaque
data:
  {{ $block.key }}: {{ $block.value | b64enc | quote }}
{{- end }}
{{- end }}
{{- end -}}
