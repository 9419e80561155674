{{/*
Naming, labels and the small computed values every svc-lib template uses.

Two calling conventions:
  - release-level helpers take the root context ($): "svc-lib.fullname", "svc-lib.kafkaSecretName", ...
  - per-service helpers take a "component context": (dict "root" $ "name" "identity" "svc" $.Values.services.identity)
    built by the caller; .name is the key under .Values.services, .svc its values block.
*/}}

{{/* Release-wide prefix of every object name: <release>-<chart>, or the release name when it already contains the chart name. */}}
{{- define "svc-lib.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Object name of one service's Deployment, Service, ServiceAccount, ...: <fullname>-<service>. */}}
{{- define "svc-lib.name" -}}
{{- printf "%s-%s" (include "svc-lib.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "svc-lib.chartLabel" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels on every object besides its selector labels (root context). */}}
{{- define "svc-lib.baseLabels" -}}
helm.sh/chart: {{ include "svc-lib.chartLabel" . }}
app.kubernetes.io/part-of: svc-inbox
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Chart.AppVersion }}
app.kubernetes.io/version: {{ . | quote }}
{{- end }}
{{- end -}}

{{/* Labels of release-wide objects that belong to no one service (root context). */}}
{{- define "svc-lib.commonLabels" -}}
{{ include "svc-lib.baseLabels" . }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Selector labels of one service's pods (component context). Never change these: selectors are immutable. */}}
{{- define "svc-lib.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "svc-lib.labels" -}}
{{ include "svc-lib.baseLabels" .root }}
{{ include "svc-lib.selectorLabels" . }}
{{- end -}}

{{/* Image reference: [registry/]repository:tag[@digest]; tag defaults to global.imageTag, then the chart's appVersion. */}}
{{- define "svc-lib.image" -}}
{{- $g := .root.Values.global -}}
{{- $img := .svc.image -}}
{{- $repo := $img.repository -}}
{{- with $g.imageRegistry }}{{ $repo = printf "%s/%s" (trimSuffix "/" .) $repo }}{{ end -}}
{{- $tag := toString (default (default .root.Chart.AppVersion $g.imageTag) $img.tag) -}}
{{- printf "%s:%s" $repo $tag -}}
{{- with $img.digest }}{{ printf "@%s" . }}{{ end -}}
{{- end -}}

{{- define "svc-lib.imagePullPolicy" -}}
{{- default .root.Values.global.imagePullPolicy .svc.image.pullPolicy -}}
{{- end -}}


{{/* Secret holding the Kafka SASL password (root context). */}}
{{- define "svc-lib.kafkaSecretName" -}}
{{- default (printf "%s-kafka" (include "svc-lib.fullname" .)) .Values.kafka.sasl.existingSecret -}}
{{- end -}}

{{/* Database name of a service on the dev MariaDB: svc_<service> with dashes as underscores (component context). */}}
{{- define "svc-lib.databaseName" -}}
{{- default (printf "svc_%s" (.name | replace "-" "_")) .svc.database.name -}}
{{- end -}}

{{/* DSN of a service when the chart owns it (no database.existingSecret): database.url, else (infra.enabled) the dev
     MariaDB. Empty when the DSN comes from a Secret the operator manages. */}}
{{- define "svc-lib.managedDbUrl" -}}
{{- if .svc.database.existingSecret -}}
{{- else if .svc.database.url -}}
{{- .svc.database.url -}}
{{- else if and .root.Values.infra.enabled (not .svc.database.existingSecret) -}}
{{- $m := .root.Values.infra.mariadb -}}
{{- printf "mariadb://root:%s@%s-mariadb:3306/%s" $m.rootPassword (include "svc-lib.fullname" .root) (include "svc-lib.databaseName" .) -}}
{{- end -}}
{{- end -}}

{{/* The Kafka SASL password is chart-owned (a Secret is rendered) when a value is given and no existingSecret names
     the operator's own Secret (root context). Output "true" or "". */}}
{{- define "svc-lib.kafkaSecretManaged" -}}
{{- if and .Values.kafka.sasl.mechanism .Values.kafka.sasl.password (not .Values.kafka.sasl.existingSecret) (not .Values.infra.enabled) -}}true{{- end -}}
{{- end -}}

{{/*
`secretEnv` of a service: env vars read from release-wide values blocks. An entry {name: ENV_VAR, from: <block>}
names a top-level values block shaped like trustJwks, {existingSecret, key, value}: the Secret is existingSecret
(yours), else <fullname>-<block in kebab case> (the chart creates it from `value`, or you do). Deployment and
migration Job both get the env var; services without the entry never see it. The helpers below take
(dict "root" $ "from" <block>).
*/}}

{{/* Name of the Secret behind values block .from. */}}
{{- define "svc-lib.secretBlockName" -}}
{{- $block := index .root.Values .from -}}
{{- default (printf "%s-%s" (include "svc-lib.fullname" .root) (kebabcase .from)) $block.existingSecret -}}
{{- end -}}

{{/* "true" when the chart owns the Secret of values block .from: a value and no existingSecret. */}}
{{- define "svc-lib.secretBlockManaged" -}}
{{- $block := index .root.Values .from -}}
{{- if and $block.value (not $block.existingSecret) -}}true{{- end -}}
{{- end -}}

{{/* Values blocks read through `secretEnv` by the enabled services (root context): sorted YAML list of names. */}}
{{- define "svc-lib.secretEnvBlocks" -}}
{{- $blocks := list -}}
{{- range $name, $svc := .Values.services -}}
{{- if $svc.enabled -}}
{{- range (default (list) (index $svc "secretEnv")) -}}
{{- $blocks = append $blocks .from -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml ($blocks | uniq | sortAlpha) -}}
{{- end -}}

{{/* Secret holding a service's DB_URL (component context): existingSecret, else <name>-db (created by the chart
     when it owns the DSN, else expected to exist). */}}
{{- define "svc-lib.dbSecretName" -}}
{{- default (printf "%s-db" (include "svc-lib.name" .)) .svc.database.existingSecret -}}
{{- end -}}

{{/* "true" when the migration Job hook runs for this service (component context). With infra.enabled the dev
     MariaDB does not exist yet when pre-install hooks run, so services migrate at start-up instead. */}}
{{- define "svc-lib.migrationJobEnabled" -}}
{{- if and .svc.database.enabled .root.Values.migrations.job.enabled (not .root.Values.infra.enabled) -}}true{{- end -}}
{{- end -}}

{{/* Kafka bootstrap servers: the dev broker when infra.enabled, else kafka.brokers. */}}
{{- define "svc-lib.kafkaBrokers" -}}
{{- if .Values.infra.enabled -}}
{{- printf "%s-kafka:9092" (include "svc-lib.fullname" .) -}}
{{- else -}}
{{- .Values.kafka.brokers -}}
{{- end -}}
{{- end -}}

{{/* gRPC target of service $name (root + name): host:port of its ClusterIP Service, or dns:///<headless>:port when
     global.grpcClientSideBalancing (the client then balances over every pod). */}}
{{- define "svc-lib.grpcTarget" -}}
{{- $target := index .root.Values.services .target -}}
{{- $host := printf "%s-%s" (include "svc-lib.fullname" .root) .target | trunc 63 | trimSuffix "-" -}}
{{- if .root.Values.global.grpcClientSideBalancing -}}
{{- printf "dns:///%s-headless:%v" ($host | trunc 54 | trimSuffix "-") $target.ports.grpc -}}
{{- else -}}
{{- printf "%s:%v" $host $target.ports.grpc -}}
{{- end -}}
{{- end -}}

{{/* Absolute base URL of the public edge (root context): global.publicUrl; when empty and the Ingress serves its
     first host over TLS (the host is listed in ingress.tls), https://<that host>; else empty (the services then build
     relative links). Services with `publicUrlEnv` receive it in that env var. */}}
{{- define "svc-lib.publicUrl" -}}
{{- $g := .Values.global -}}
{{- $ing := .Values.ingress -}}
{{- if (index $g "publicUrl") -}}
{{- trimSuffix "/" $g.publicUrl -}}
{{- else if and $ing.enabled $ing.hosts -}}
{{- $host := first $ing.hosts -}}
{{- $tlsHosts := list -}}
{{- range $ing.tls }}{{ $tlsHosts = concat $tlsHosts (default (list) .hosts) }}{{ end -}}
{{- if and $host (not (hasPrefix "*" $host)) (has $host $tlsHosts) -}}
{{- printf "https://%s" $host -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Non-secret environment of a service as a YAML map (component context); the ConfigMap's data. Computed
     settings first (including persistence.mountPath under persistence.mountPathEnv and the public base URL under
     publicUrlEnv), then the service's `env` values, which win. */}}
{{- define "svc-lib.envData" -}}
{{- $root := .root -}}
{{- $svc := .svc -}}
{{- $g := $root.Values.global -}}
{{- $d := dict "NODE_ENV" "production" "LOG_LEVEL" $g.logLevel "SHUTDOWN_GRACE_MS" (toString $g.shutdownGraceMs) -}}
{{- if eq $svc.kind "grpc" -}}
{{- $_ := set $d "GRPC_PORT" (toString $svc.ports.grpc) -}}
{{- end -}}
{{- $_ := set $d $svc.httpPortEnv (toString $svc.ports.http) -}}
{{- with (($g.tracing | default dict).otlpEndpoint) -}}
{{- $_ := set $d "OTEL_EXPORTER_OTLP_ENDPOINT" . -}}
{{- $_ := set $d "OTEL_SERVICE_NAME" $.name -}}
{{- end -}}
{{- if $svc.kafka -}}
{{- $k := $root.Values.kafka -}}
{{- $_ := set $d "KAFKA_BROKERS" (include "svc-lib.kafkaBrokers" $root) -}}
{{- $_ := set $d "KAFKA_TOPIC_PREFIX" $k.topicPrefix -}}
{{- if $root.Values.infra.enabled -}}
{{- $_ := set $d "KAFKA_SSL" "false" -}}
{{- else -}}
{{- $_ := set $d "KAFKA_SSL" (toString $k.tls.enabled) -}}
{{- with $k.sasl.mechanism -}}
{{- $_ := set $d "KAFKA_SASL_MECHANISM" . -}}
{{- $_ := set $d "KAFKA_SASL_USERNAME" $k.sasl.username -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and $svc.database.enabled (include "svc-lib.migrationJobEnabled" .) -}}
{{- $_ := set $d "DB_MIGRATE" "skip" -}}
{{- end -}}
{{- $p := include "svc-lib.persistence" . | fromYaml -}}
{{- if and $p.enabled $p.mountPathEnv -}}
{{- $_ := set $d $p.mountPathEnv $p.mountPath -}}
{{- end -}}
{{- with (index $svc "publicUrlEnv") -}}
{{- with (include "svc-lib.publicUrl" $root) -}}
{{- $_ := set $d $svc.publicUrlEnv . -}}
{{- end -}}
{{- end -}}
{{- range $env, $target := $svc.upstreams -}}
{{- $t := index $root.Values.services $target -}}
{{- if not $t -}}
{{- fail (printf "services.%s.upstreams.%s names %q, which is not a service under services:" $.name $env $target) -}}
{{- end -}}
{{- if $t.enabled -}}
{{- $_ := set $d $env (include "svc-lib.grpcTarget" (dict "root" $root "target" $target)) -}}
{{- end -}}
{{- end -}}
{{- range $k, $v := $svc.env -}}
{{- $_ := set $d $k (toString $v) -}}
{{- end -}}
{{- toYaml $d -}}
{{- end -}}

{{/* Names of the enabled services that call service .name over gRPC: every enabled service whose `upstreams`
     names it (component context). Output: YAML list. */}}
{{- define "svc-lib.callers" -}}
{{- $callers := list -}}
{{- range $caller, $c := .root.Values.services -}}
{{- if $c.enabled -}}
{{- range $env, $target := $c.upstreams -}}
{{- if eq $target $.name -}}
{{- $callers = append $callers $caller -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml (uniq $callers) -}}
{{- end -}}

{{/* Pod-level security context (root context). */}}
{{- define "svc-lib.podSecurityContext" -}}
{{- toYaml .Values.global.podSecurityContext -}}
{{- end -}}

{{/* Container-level security context (root context). */}}
{{- define "svc-lib.securityContext" -}}
{{- toYaml .Values.global.securityContext -}}
{{- end -}}
