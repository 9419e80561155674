{{/*
Public routing of one service (component context), for services with public.paths (the gateway: /graphql, the
inbox: /media, webhook-ingress: /webhooks/in; later widget-api: /api/web, widget: /widget). One Ingress / HTTPRoute
per service, so each can carry its own annotations (SSE needs unbuffered, long-lived responses; webhooks a body-size
cap; gateway uploads a large one) and a disabled service has no route at all. All share ingress.hosts / httpRoute.hostnames.

Every Ingress lists ingress.tls, so the controller serves HTTPS for the hosts on every path. cert-manager's
ingress-shim, though, creates one Certificate per annotated Ingress: several Ingresses naming the same secretName
would get Certificates that overwrite each other's Secret (and each its own ACME orders). So the cert-manager
annotations (svc-lib.isCertManagerAnnotation) go on the primary Ingress only (svc-lib.primaryIngress); its one
Certificate covers every host of ingress.tls, and the other Ingresses use the Secret it fills.
*/}}

{{/* Whether an annotation key tells cert-manager's ingress-shim to issue a Certificate for the Ingress (or configures
     that issuance): cert-manager.io/*, acme.cert-manager.io/*, and the legacy kubernetes.io/tls-acme. "true" or "". */}}
{{- define "svc-lib.isCertManagerAnnotation" -}}
{{- if or (hasPrefix "cert-manager.io/" .) (hasPrefix "acme.cert-manager.io/" .) (eq . "kubernetes.io/tls-acme") -}}
true
{{- end -}}
{{- end -}}

{{/* Key of the service whose Ingress carries the cert-manager annotations (root context): ingress.primaryService when
     it renders an Ingress (enabled, with public.paths), else the first service in key order that does; empty when
     none does. */}}
{{- define "svc-lib.primaryIngress" -}}
{{- $public := list -}}
{{- range $name, $svc := .Values.services -}}
{{- if and $svc.enabled $svc.public.paths }}{{ $public = append $public $name }}{{ end -}}
{{- end -}}
{{- if has .Values.ingress.primaryService $public -}}
{{- .Values.ingress.primaryService -}}
{{- else if $public -}}
{{- first $public -}}
{{- end -}}
{{- end -}}
{{- define "svc-lib.ingress" -}}
{{- $ing := .root.Values.ingress -}}
{{- $name := include "svc-lib.name" . -}}
{{- $primary := eq .name (include "svc-lib.primaryIngress" .root) -}}
{{- $annotations := dict -}}
{{- range $key, $value := (merge (dict) (default (dict) .svc.public.ingressAnnotations) $ing.annotations) -}}
{{- if or $primary (not (include "svc-lib.isCertManagerAnnotation" $key)) }}{{ $_ := set $annotations $key $value }}{{ end -}}
{{- end -}}
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
  {{- with $annotations }}
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
