{{/* PodDisruptionBudget of one service (component context). maxUnavailable (default 1) never blocks a node drain,
     even at one replica; minAvailable is used instead when set. */}}
{{- define "svc-lib.pdb" -}}
{{- $p := .svc.pdb -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "svc-lib.name" . }}
  labels:
    {{- include "svc-lib.labels" . | nindent 4 }}
spec:
  {{- if not (kindIs "invalid" (index $p "minAvailable")) }}
  minAvailable: {{ $p.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $p.maxUnavailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "svc-lib.selectorLabels" . | nindent 6 }}
{{- end -}}
