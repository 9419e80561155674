{{/*
Services of one service (component context):
  <name>           ClusterIP, ports "grpc" (kind grpc only) and "http" (health, readiness, metrics, public routes)
  <name>-headless  kind grpc only: one DNS A record per ready pod, for gRPC clients that balance per call
                   (global.grpcClientSideBalancing); a ClusterIP pins each long-lived HTTP/2 connection to one pod.
*/}}
{{- define "svc-lib.service" -}}
{{- $svc := .svc -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "svc-lib.name" . }}
  labels:
    {{- include "svc-lib.labels" . | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "svc-lib.selectorLabels" . | nindent 4 }}
  ports:
    {{- if eq $svc.kind "grpc" }}
    - name: grpc
      port: {{ $svc.ports.grpc }}
      targetPort: grpc
      protocol: TCP
      appProtocol: kubernetes.io/h2c
    {{- end }}
    - name: http
      port: {{ $svc.ports.http }}
      targetPort: http
      protocol: TCP
      appProtocol: http
{{- if eq $svc.kind "grpc" }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ include "svc-lib.name" . | trunc 54 | trimSuffix "-" }}-headless
  labels:
    {{- include "svc-lib.labels" . | nindent 4 }}
spec:
  clusterIP: None
  selector:
    {{- include "svc-lib.selectorLabels" . | nindent 4 }}
  ports:
    - name: grpc
      port: {{ $svc.ports.grpc }}
      targetPort: grpc
      protocol: TCP
      appProtocol: kubernetes.io/h2c
{{- end }}
{{- end -}}
