{{/*
Migration Job of one service (component context): `main.js migrate` (creates the service's database if missing,
applies pending migrations, exits), as a pre-install/pre-upgrade hook, so a release's pods only start on a schema
that is up to date; the Deployments run with DB_MIGRATE=skip. Helm waits for the Job; a failed Job fails the
install/upgrade and leaves the previous pods serving. The Job is deleted when it succeeded, kept when it failed
(for `kubectl logs`), and replaced on the next attempt.

Hooks run before the release's own objects exist, so the Job reads no chart ConfigMap, and the secrets the chart
owns (database.url, the `value` of a block the service reads through secretEnv) reach it
through a hook Secret <name>-migrate created just before it and deleted with it. Secrets the operator manages
(existingSecret) are referenced directly. The Job gets the service's secretEnv like its Deployment (webhook-ingress:
WEBHOOK_SECRETS_KEYS, so its migration also seals legacy plain-text signing secrets, docs/decisions/0014).
*/}}
{{- define "svc-lib.migration" -}}
{{- $root := .root -}}
{{- $g := $root.Values.global -}}
{{- $job := $root.Values.migrations.job -}}
{{- $svc := .svc -}}
{{- $jobName := printf "%s-migrate" (include "svc-lib.name" . | trunc 55 | trimSuffix "-") -}}
{{- $managedDb := include "svc-lib.managedDbUrl" . -}}
{{- $secretEnv := default (list) (index $svc "secretEnv") -}}
{{- $managedSecretEnv := list -}}
{{- range $secretEnv -}}
{{- if include "svc-lib.secretBlockManaged" (dict "root" $root "from" .from) -}}
{{- $managedSecretEnv = append $managedSecretEnv . -}}
{{- end -}}
{{- end -}}
{{- if or $managedDb $managedSecretEnv }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ $jobName }}
  labels:
    {{- include "svc-lib.commonLabels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}-migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "-10"
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
type: Opaque
data:
  {{- if $managedDb }}
  DB_URL: {{ $managedDb | b64enc | quote }}
  {{- end }}
  {{- range $managedSecretEnv }}
  {{ .name }}: {{ (index $root.Values .from).value | b64enc | quote }}
  {{- end }}
---
{{- end }}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ $jobName }}
  labels:
    {{- include "svc-lib.commonLabels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}-migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "0"
    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
spec:
  backoffLimit: {{ $job.backoffLimit }}
  activeDeadlineSeconds: {{ $job.activeDeadlineSeconds }}
  template:
    metadata:
      labels:
        {{- include "svc-lib.commonLabels" $root | nindent 8 }}
        app.kubernetes.io/component: {{ .name }}-migrate
    spec:
      restartPolicy: Never
      automountServiceAccountToken: false
      enableServiceLinks: false
      securityContext:
        {{- include "svc-lib.podSecurityContext" $root | nindent 8 }}
      {{- with $g.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $g.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $g.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: migrate
          image: {{ include "svc-lib.image" . | quote }}
          imagePullPolicy: {{ include "svc-lib.imagePullPolicy" . }}
          args: ["migrate"]
          env:
            - name: NODE_ENV
              value: production
            - name: LOG_LEVEL
              value: {{ $g.logLevel | quote }}
            {{- range $k, $v := $svc.env }}
            - name: {{ $k }}
              value: {{ toString $v | quote }}
            {{- end }}
            - name: DB_URL
              valueFrom:
                secretKeyRef:
                  {{- if $managedDb }}
                  name: {{ $jobName }}
                  key: DB_URL
                  {{- else }}
                  name: {{ include "svc-lib.dbSecretName" . }}
                  key: {{ $svc.database.secretKey }}
                  {{- end }}
            {{- range $secretEnv }}
            - name: {{ .name }}
              valueFrom:
                secretKeyRef:
                  {{- if include "svc-lib.secretBlockManaged" (dict "root" $root "from" .from) }}
                  name: {{ $jobName }}
                  key: {{ .name }}
                  {{- else }}
                  name: {{ include "svc-lib.secretBlockName" (dict "root" $root "from" .from) }}
                  key: {{ (index $root.Values .from).key }}
                  {{- end }}
            {{- end }}
            {{- with $g.extraCACerts.secretName }}
            - name: NODE_EXTRA_CA_CERTS
              value: /etc/svc/ca/{{ $g.extraCACerts.key }}
            {{- end }}
          resources:
            {{- toYaml $job.resources | nindent 12 }}
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
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
        {{- with $g.extraCACerts.secretName }}
        - name: extra-ca
          secret:
            secretName: {{ . }}
        {{- end }}
{{- end -}}
