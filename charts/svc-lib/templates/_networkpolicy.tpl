{{/*
NetworkPolicy of one service (component context): an allow-list of who may connect to its pods, and, for a service
with networkPolicy.egress.enabled, of where its pods may connect (see "svc-lib.egressRules"). Other services' egress
is not restricted (MySQL and Kafka live outside the cluster as often as inside).
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
{{- $egress := dig "networkPolicy" "egress" (dict) $svc -}}
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
    {{- if $egress.enabled }}
    - Egress
    {{- end }}
  ingress:
    {{- if $rules }}
    {{- toYaml $rules | nindent 4 }}
    {{- else }} []
    {{- end }}
  {{- if $egress.enabled }}
  egress:
    {{- include "svc-lib.egressRules" . | nindent 4 }}
  {{- end }}
{{- end -}}

{{/*
Egress rules of a service with networkPolicy.egress.enabled (component context), as a YAML list:
  - DNS (53, UDP and TCP) at any address: the cluster's resolver;
  - the grpc port of the pods of each enabled service its `upstreams` name (derived, like the callers above);
  - MySQL (egress.databasePorts, when database.enabled) and Kafka (the port of each of kafka.brokers, or the bundled
    broker's with infra.enabled) at any address: they live outside the cluster as often as inside, at private
    addresses the chart cannot know;
  - the port of global.tracing.otlpEndpoint at any address, when tracing is on;
  - egress.internet.ports at every address but egress.internet.except (IPv4 and IPv6): the public internet;
  - egress.extraEgress, verbatim.
*/}}
{{- define "svc-lib.egressRules" -}}
{{- $root := .root -}}
{{- $svc := .svc -}}
{{- $egress := $svc.networkPolicy.egress -}}
{{- $tcp := list -}}
{{- $rules := list (dict "ports" (list (dict "port" 53 "protocol" "UDP") (dict "port" 53 "protocol" "TCP"))) -}}
{{- range $env, $target := $svc.upstreams -}}
{{- if (index $root.Values.services $target).enabled -}}
{{- $to := list (dict "podSelector" (dict "matchLabels" (dict "app.kubernetes.io/name" $root.Chart.Name "app.kubernetes.io/instance" $root.Release.Name "app.kubernetes.io/component" $target))) -}}
{{- $rules = append $rules (dict "to" $to "ports" (list (dict "port" "grpc" "protocol" "TCP"))) -}}
{{- end -}}
{{- end -}}
{{- if $svc.database.enabled -}}
{{- range (default (list) $egress.databasePorts) }}{{ $tcp = append $tcp (int .) }}{{ end -}}
{{- end -}}
{{- if $svc.kafka -}}
{{- range (splitList "," (include "svc-lib.kafkaBrokers" $root)) -}}
{{- $tcp = append $tcp (int (last (splitList ":" (trim .)))) -}}
{{- end -}}
{{- end -}}
{{- with (($root.Values.global.tracing | default dict).otlpEndpoint) -}}
{{- $url := urlParse . -}}
{{- $hostPort := splitList ":" $url.host -}}
{{- $tcp = append $tcp (ternary (int (last $hostPort)) (ternary 443 80 (eq $url.scheme "https")) (gt (len $hostPort) 1)) -}}
{{- end -}}
{{- if $tcp -}}
{{- $ports := list -}}
{{- range ($tcp | uniq | sortAlpha) }}{{ $ports = append $ports (dict "port" (int .) "protocol" "TCP") }}{{ end -}}
{{- $rules = append $rules (dict "ports" $ports) -}}
{{- end -}}
{{- $internet := $egress.internet | default dict -}}
{{- if $internet.ports -}}
{{- $v4 := list -}}
{{- $v6 := list -}}
{{- range (default (list) $internet.except) -}}
{{- if contains ":" . }}{{ $v6 = append $v6 . }}{{ else }}{{ $v4 = append $v4 . }}{{ end -}}
{{- end -}}
{{- $ports := list -}}
{{- range $internet.ports }}{{ $ports = append $ports (dict "port" (int .) "protocol" "TCP") }}{{ end -}}
{{- $to := list (dict "ipBlock" (dict "cidr" "0.0.0.0/0" "except" $v4)) (dict "ipBlock" (dict "cidr" "::/0" "except" $v6)) -}}
{{- $rules = append $rules (dict "to" $to "ports" $ports) -}}
{{- end -}}
{{- range (default (list) $egress.extraEgress) -}}
{{- $rules = append $rules . -}}
{{- end -}}
{{- toYaml $rules -}}
{{- end -}}
