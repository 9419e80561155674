{{/* ServiceAccount of one service (component context). The pods never call the Kubernetes API: no token mounted. */}}
{{- define "svc-lib.serviceAccount" -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "svc-lib.name" . }}
  labels:
    {{- include "svc-lib.labels" . | nindent 4 }}
  {{- with .svc.serviceAccountAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: false
{{- end -}}
