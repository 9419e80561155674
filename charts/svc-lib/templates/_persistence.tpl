{{/*
Persistent storage of one service (component context), opt-in with `persistence.enabled`:

  persistence:
    enabled: true
    existingClaim: ""              # a PVC you manage; empty = the chart creates <name>-data
    size: 10Gi                     # chart-created claim only
    storageClassName: ""           # "" = the cluster's default class; "-" = storageClassName: "" (pre-bound PVs)
    accessModes: [ReadWriteMany]   # ReadWriteMany (any number of pods on any node), ReadWriteOnce, ReadWriteOncePod
    mountPath: /var/lib/svc/data   # where the container sees it
    mountPathEnv: DATA_DIR         # env var (ConfigMap) that receives mountPath; "" = none
    annotations: {}                # on the chart-created claim (backup tooling, ...)

The Deployment mounts the claim as volume "data" (read-write; the pod's fsGroup makes it writable by the non-root
user on volumes that support ownership management). A chart-created claim carries helm.sh/resource-policy: keep:
`helm uninstall` (and an upgrade that disables persistence) leaves it and its data in place, and a later install of
the same release in the same namespace adopts it again.

Without ReadWriteMany, only one node can mount the volume: "svc-lib.validatePersistence" rejects more than one
replica (or an HPA above one), and the Deployment rolls with Recreate, since a surge pod on another node could never
attach the volume and the rollout would hang.
*/}}

{{/* The persistence block of a service, or an empty dict (component context). */}}
{{- define "svc-lib.persistence" -}}
{{- toYaml (default (dict) (index .svc "persistence")) -}}
{{- end -}}

{{/* "true" when the service mounts a persistent volume (component context). */}}
{{- define "svc-lib.persistenceEnabled" -}}
{{- $p := include "svc-lib.persistence" . | fromYaml -}}
{{- if $p.enabled -}}true{{- end -}}
{{- end -}}

{{/* Access modes of the service's volume, defaulted (component context). Output: YAML list. */}}
{{- define "svc-lib.persistenceAccessModes" -}}
{{- $p := include "svc-lib.persistence" . | fromYaml -}}
{{- toYaml (default (list "ReadWriteMany") $p.accessModes) -}}
{{- end -}}

{{/* "true" when the volume can be mounted by one node (or pod) only: no ReadWriteMany (component context). */}}
{{- define "svc-lib.persistenceSingleNode" -}}
{{- if include "svc-lib.persistenceEnabled" . -}}
{{- if not (has "ReadWriteMany" (include "svc-lib.persistenceAccessModes" . | fromYamlArray)) -}}true{{- end -}}
{{- end -}}
{{- end -}}

{{/* Name of the claim the Deployment mounts (component context): existingClaim, else <name>-data. */}}
{{- define "svc-lib.claimName" -}}
{{- $p := include "svc-lib.persistence" . | fromYaml -}}
{{- default (printf "%s-data" (include "svc-lib.name" . | trunc 58 | trimSuffix "-")) $p.existingClaim -}}
{{- end -}}

{{/* The PersistentVolumeClaim the chart creates (component context): persistence.enabled without existingClaim. */}}
{{- define "svc-lib.pvc" -}}
{{- $p := include "svc-lib.persistence" . | fromYaml -}}
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {{ include "svc-lib.claimName" . }}
  labels:
    {{- include "svc-lib.labels" . | nindent 4 }}
  annotations:
    # kept on `helm uninstall`: the data outlives the release (delete the claim yourself to discard it)
    helm.sh/resource-policy: keep
    {{- with $p.annotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  accessModes:
    {{- include "svc-lib.persistenceAccessModes" . | nindent 4 }}
  {{- if eq (toString $p.storageClassName) "-" }}
  storageClassName: ""
  {{- else if $p.storageClassName }}
  storageClassName: {{ $p.storageClassName | quote }}
  {{- end }}
  volumeMode: Filesystem
  resources:
    requests:
      storage: {{ $p.size | quote }}
{{- end -}}

{{/* Checks of one enabled service's persistence (component context); each failure names the value to fix. */}}
{{- define "svc-lib.validatePersistence" -}}
{{- if include "svc-lib.persistenceEnabled" . -}}
{{- $p := include "svc-lib.persistence" . | fromYaml -}}
{{- $svc := .svc -}}
{{- $at := printf "services.%s.persistence" .name -}}
{{- if not $p.mountPath -}}
{{- fail (printf "%s.mountPath is required: the directory the container sees the volume at (e.g. /var/lib/svc/data)" $at) -}}
{{- end -}}
{{- range list "/tmp" "/app" "/etc/svc/ca" -}}
{{- if or (eq $p.mountPath .) (hasPrefix (printf "%s/" .) $p.mountPath) (hasPrefix (printf "%s/" $p.mountPath) .) -}}
{{- fail (printf "%s.mountPath %s overlaps %s, which the chart or the image already uses: pick another directory (e.g. /var/lib/svc/data)" $at $p.mountPath .) -}}
{{- end -}}
{{- end -}}
{{- if and (not $p.existingClaim) (not $p.size) -}}
{{- fail (printf "%s.size is required when the chart creates the claim (or set %s.existingClaim)" $at $at) -}}
{{- end -}}
{{- if include "svc-lib.persistenceSingleNode" . -}}
{{- $modes := include "svc-lib.persistenceAccessModes" . | fromYamlArray | join ", " -}}
{{- $override := index .root.Values.global "replicas" -}}
{{- $replicas := kindIs "invalid" $override | ternary $svc.replicas $override | int -}}
{{- $hint := printf "use ReadWriteMany storage (%s.accessModes: [ReadWriteMany] with an RWX storage class: NFS, EFS, CephFS, Azure Files), or run a single replica" $at -}}
{{- if and $svc.autoscaling.enabled (gt (int $svc.autoscaling.maxReplicas) 1) -}}
{{- fail (printf "%s.accessModes [%s] lets only one node mount the volume, but services.%s.autoscaling.maxReplicas is %v: %s" $at $modes .name $svc.autoscaling.maxReplicas $hint) -}}
{{- else if and (not $svc.autoscaling.enabled) (gt $replicas 1) -}}
{{- fail (printf "%s.accessModes [%s] lets only one node mount the volume, but services.%s runs %d replicas (replicas or global.replicas): %s" $at $modes .name $replicas $hint) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
