{{/*
Deployment of one service (component context).

Probes: kind "grpc" services get native gRPC probes (kubelet calls grpc.health.v1.Health/Check on the grpc port, the
empty service name = the whole server, SERVING once the app has started); kind "http" services (the gateway, static
assets) get httpGet /healthz (liveness, startup) and /readyz (readiness). `probes.<startup|readiness|liveness>` in a
service's values are merged over these defaults.
*/}}
{{- define "svc-lib.defaultProbes" -}}
{{- if eq .svc.kind "grpc" -}}
startup:
  grpc: { port: {{ .svc.ports.grpc }} }
  periodSeconds: 2
  timeoutSeconds: 2
  failureThreshold: 90
readiness:
  grpc: { port: {{ .svc.ports.grpc }} }
  periodSeconds: 5
  timeoutSeconds: 2
  failureThreshold: 2
liveness:
  grpc: { port: {{ .svc.ports.grpc }} }
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
{{- else -}}
startup:
  httpGet: { path: /healthz, port: http }
  periodSeconds: 2
  timeoutSeconds: 2
  failureThreshold: 90
readiness:
  httpGet: { path: /readyz, port: http }
  periodSeconds: 5
  timeoutSeconds: 2
  failureThreshold: 2
liveness:
  httpGet: { path: /healthz, port: http }
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
{{- end -}}
{{- end -}}

{{/* Secret-backed env vars of the service container (component context). */}}
{{- define "svc-lib.secretEnv" -}}
{{- $root := .root -}}
{{- range (default (list) (index .svc "secretEnv")) }}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ include "svc-lib.secretBlockName" (dict "root" $root "from" .from) }}
      key: {{ (index $root.Values .from).key }}
{{- end }}
{{- if .svc.database.enabled }}
- name: DB_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "svc-lib.dbSecretName" . }}
      key: {{ .svc.database.secretKey }}
{{- end }}
{{- if and .svc.kafka $root.Values.kafka.sasl.mechanism (not $root.Values.infra.enabled) }}
- name: KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "svc-lib.kafkaSecretName" $root }}
      key: {{ $root.Values.kafka.sasl.passwordKey }}
{{- end }}
{{- with $root.Values.global.extraCACerts.secretName }}
- name: NODE_EXTRA_CA_CERTS
  value: /etc/svc/ca/{{ $root.Values.global.extraCACerts.key }}
{{- end }}
{{- end -}}

{{/* checksum/secret (component context): the secrets the chart owns and this service reads, so changing one rolls
     its pods. The chart-owned values of `secretEnv` blocks are appended only for services that have entries, which
     leaves the checksum (and the pods) of every other service as they were. */}}
{{- define "svc-lib.secretChecksum" -}}
{{- $root := .root -}}
{{- $input := printf "%s\n%s" (include "svc-lib.managedDbUrl" .) $root.Values.kafka.sasl.password -}}
{{- range (default (list) (index .svc "secretEnv")) -}}
{{- if include "svc-lib.secretBlockManaged" (dict "root" $root "from" .from) -}}
{{- $input = printf "%s\n%s=%s" $input .name (index $root.Values .from).value -}}
{{- end -}}
{{- end -}}
{{- $input | sha256sum -}}
{{- end -}}

{{- define "svc-lib.deployment" -}}
{{- $root := .root -}}
{{- $g := $root.Values.global -}}
{{- $svc := .svc -}}
{{- $name := include "svc-lib.name" . -}}
{{- $persistence := include "svc-lib.persistence" . | fromYaml -}}
{{- $probes := mergeOverwrite (include "svc-lib.defaultProbes" . | fromYaml) (deepCopy (default (dict) $svc.probes)) -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $name }}
  labels:
    {{- include "svc-lib.labels" . | nindent 4 }}
spec:
  {{- if not $svc.autoscaling.enabled }}
  {{- $override := index $g "replicas" }}
  replicas: {{ kindIs "invalid" $override | ternary $svc.replicas $override }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "svc-lib.selectorLabels" . | nindent 6 }}
  strategy:
    {{- if include "svc-lib.persistenceSingleNode" . }}
    # the volume attaches to one node only: a surge pod elsewhere could never start, so stop the old pod first
    type: Recreate
    {{- else }}
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 0
    {{- end }}
  template:
    metadata:
      labels:
        {{- include "svc-lib.selectorLabels" . | nindent 8 }}
        app.kubernetes.io/part-of: svc-inbox
        {{- with $g.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        checksum/config: {{ include "svc-lib.envData" . | sha256sum }}
        checksum/secret: {{ include "svc-lib.secretChecksum" . }}
        {{- if and $root.Values.metrics.podAnnotations (ne (default "node" $svc.runtime) "nginx") }}
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ $svc.ports.http | quote }}
        prometheus.io/path: /metrics
        {{- end }}
        {{- with (merge (dict) (default (dict) $svc.podAnnotations) $g.podAnnotations) }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ $name }}
      automountServiceAccountToken: false
      enableServiceLinks: false
      terminationGracePeriodSeconds: {{ $g.terminationGracePeriodSeconds }}
      securityContext:
        {{- include "svc-lib.podSecurityContext" $root | nindent 8 }}
      {{- with $g.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $g.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      {{- with $g.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $g.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $g.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if $g.topologySpread }}
      topologySpreadConstraints:
        {{- range $key := list "kubernetes.io/hostname" "topology.kubernetes.io/zone" }}
        - maxSkew: 1
          topologyKey: {{ $key }}
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "svc-lib.selectorLabels" $ | nindent 14 }}
        {{- end }}
      {{- end }}
      containers:
        - name: {{ .name }}
          image: {{ include "svc-lib.image" . | quote }}
          imagePullPolicy: {{ include "svc-lib.imagePullPolicy" . }}
          {{- if and $g.dev.watch (ne (default "node" $svc.runtime) "nginx") }}
          # dev only: restart on the dist files skaffold syncs in (the image's ENTRYPOINT runs the same file)
          command: ["node", "--watch", "dist/src/main.js"]
          {{- end }}
          ports:
            {{- if eq $svc.kind "grpc" }}
            - name: grpc
              containerPort: {{ $svc.ports.grpc }}
              protocol: TCP
            {{- end }}
            - name: http
              containerPort: {{ $svc.ports.http }}
              protocol: TCP
          envFrom:
            - configMapRef:
                name: {{ $name }}-env
          env:
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            - name: POD_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            {{- if $svc.kafka }}
            # one Kafka client id per pod, so broker-side quotas and logs tell pods apart
            - name: KAFKA_CLIENT_ID
              value: "$(POD_NAME)"
            {{- end }}
            {{- with (include "svc-lib.secretEnv" . | trim) }}
            {{- . | nindent 12 }}
            {{- end }}
            {{- with $svc.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          startupProbe:
            {{- toYaml $probes.startup | nindent 12 }}
          readinessProbe:
            {{- toYaml $probes.readiness | nindent 12 }}
          livenessProbe:
            {{- toYaml $probes.liveness | nindent 12 }}
          {{- if $g.preStopSleepSeconds }}
          lifecycle:
            # keep serving while endpoints and load balancers drop the pod; then SIGTERM starts the app's own drain
            preStop:
              exec:
                command: ["sleep", {{ $g.preStopSleepSeconds | quote }}]
          {{- end }}
          resources:
            {{- toYaml $svc.resources | nindent 12 }}
          securityContext:
            {{- include "svc-lib.securityContext" $root | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if $g.extraCACerts.secretName }}
            - name: extra-ca
              mountPath: /etc/svc/ca
              readOnly: true
            {{- end }}
            {{- if $persistence.enabled }}
            - name: data
              mountPath: {{ $persistence.mountPath }}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
        {{- with $g.extraCACerts.secretName }}
        - name: extra-ca
          secret:
            secretName: {{ . }}
        {{- end }}
        {{- if $persistence.enabled }}
        - name: data
          persistentVolumeClaim:
            claimName: {{ include "svc-lib.claimName" . }}
        {{- end }}
{{- end -}}
