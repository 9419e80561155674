{{/*
NetworkPolicy of one service (component context): an allow-list of who may connect to its pods. Egress is not
restricted (MySQL and Kafka live outside the cluster as often as inside).
  - grpc port: only the pods of the enabled services that name this one in their `upstreams` (gateway -> identity,
    inbox; later flows -> inbox, contacts; ...). Derived, never listed twice.
  - http port, public services (those with public.paths): networkPolicy.ingressControllerFrom (the ingress controller
    or Gateway API implementation pods).
  - http port: networkPolicy.metricsFrom (Prometheus scraping /metrics).
  - both ports: networkPolicy.probeCIDRs (node addresses, for CNIs that subject kubelet probes to policies; most
    always allow a node's traffic to its own pods, and then this stays empty).
  - the service's networkPolicy.extraIngress rules, verbatim.
*/}}
{{- define "svc-lib.networkPolicy" -}}
{{- $root := .root -}}
{{- $np := $root.Values.networkPolicy -}}
{{- $svc := .svc -}}
{{- $rules := list -}}
{{- $callers := include "svc-lib.callers" . | fromYamlArray -}}
{{- if and (eq $svc.kind "grpc") $callers -}}
{{- $from := list -}}
{{- range $callers -}}
{{- $from = append $from (dict "podSelector" (dict "matchLabels" (dict "app.kubernetes.io/name" $root.Chart.Name "app.kubernetes.io/instance" $root.Release.Name "app.kubernetes.io/component" .))) -}}
{{- end -}}
{{- $rules = append $rules (dict "from" $from "ports" (list (dict "port" "grpc" "protocol" "TCP"))) -}}
{{- end -}}
{{- if and $svc.public.paths $np.ingressControllerFrom -}}
{{- $rules = append $rules (dict "from" $np.ingressControllerFrom "ports" (list (dict "port" "http" "protocol" "TCP"))) -}}
{{- end -}}
{{- with $np.metricsFrom -}}
{{- $rules = append $rules (dict "from" . "ports" (list (dict "port" "http" "protocol" "TCP"))) -}}
{{- end -}}
{{- with $np.probeCIDRs -}}
{{- $from := list -}}
{{- range . }}{{ $from = append $from (dict "ipBlock" (dict "cidr" .)) }}{{ end -}}
{{- $ports := list (dict "port" "http" "protocol" "TCP") -}}
{{- if eq $svc.kind "grpc" }}{{ $ports = prepend $ports (dict "port" "grpc" "protocol" "TCP") }}{{ end -}}
{{- $rules = append $rules (dict "from" $from "ports" $ports) -}}
{{- end -}}
{{- range (dig "networkPolicy" "extraIngress" (list) $svc) -}}
{{- $rules = append $rules . -}}
{{- end -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "svc-lib.name" . }}
  labels:
    {{- include "svc-lib.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "svc-lib.selectorLabels" . | nindent 6 }}
  policyTypes:
    - Ingress
  ingress:
    {{- if $rules }}
    {{- toYaml $rules | nindent 4 }}
    {{- else }} []
    {{- end }}
{{- end -}}
