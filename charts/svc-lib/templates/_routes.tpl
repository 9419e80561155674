{{/*
Public routing of one service (component context), for services with public.paths (the gateway: /graphql, the
inbox: /media, webhook-ingress: /webhooks/in; later widget-api: /api/web, widget: /widget). One Ingress / HTTPRoute
per service, so each can carry its own annotations (SSE needs unbuffered, long-lived responses; webhooks a body-size
cap; gateway uploads a large one) and a disabled service has no route at all. All share ingress.hosts / httpRoute.hostnames.
*/}}
{{- define "svc-lib.ingress" -}}
{{- $ing := .root.Values.ingress -}}
{{- $name := include "svc-lib.name" . -}}
{{- $paths := list -}}
{{- range .svc.public.paths -}}
{{- $paths = append $paths (dict "path" . "pathType" "Prefix" "backend" (dict "service" (dict "name" $name "port" (dict "name" "http")))) -}}
{{- end -}}
{{- $rules := list -}}
{{- range (default (list "") $ing.hosts) -}}
{{- $rule := dict "http" (dict "paths" $paths) -}}
{{- if . }}{{ $_ := set $rule "host" . }}{{ end -}}
{{- $rules = append $rules $rule -}}
{{- end -}}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ $name }}
  labels:
    {{- include "svc-lib.labels" . | nindent 4 }}
  {{- with (merge (dict) (default (dict) .svc.public.ingressAnnotations) $ing.annotations) }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with $ing.className }}
  ingressClassName: {{ . }}
  {{- end }}
  {{- with $ing.tls }}
  tls:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  rules:
    {{- toYaml $rules | nindent 4 }}
{{- end -}}

{{- define "svc-lib.httpRoute" -}}
{{- $route := .root.Values.httpRoute -}}
{{- $name := include "svc-lib.name" . -}}
{{- $matches := list -}}
{{- range .svc.public.paths -}}
{{- $matches = append $matches (dict "path" (dict "type" "PathPrefix" "value" .)) -}}
{{- end -}}
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: {{ $name }}
  labels:
    {{- include "svc-lib.labels" . | nindent 4 }}
  {{- with $route.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  parentRefs:
    {{- toYaml $route.parentRefs | nindent 4 }}
  {{- with $route.hostnames }}
  hostnames:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  rules:
    - matches:
        {{- toYaml $matches | nindent 8 }}
      backendRefs:
        - name: {{ $name }}
          port: {{ .svc.ports.http }}
      {{- with .svc.public.httpRouteTimeouts }}
      timeouts:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end -}}
