{{/*
Checks of the media library across services (root context), which the generic library chart cannot know about:
the gateway accepts GraphQL multipart uploads and passes them to the inbox in one gRPC call, so
  - the gateway must not accept more than the inbox stores: UPLOAD_MAX_BYTES <= MEDIA_MAX_BYTES and
    UPLOAD_MAX_FILES <= MEDIA_MAX_FILES (the inbox sizes its gRPC message limit from its own two values);
  - an nginx body-size annotation on the gateway's Ingress must let UPLOAD_MAX_FILES x UPLOAD_MAX_BYTES through.
Unset env values are the apps' defaults (16 MiB, 10 files). And the inbox needs somewhere writable for the files:
its root filesystem is read-only, so without persistence MEDIA_DIR must be set explicitly (e.g. /tmp/media for a
throwaway install: the 64Mi emptyDir, lost with the pod).
*/}}
{{- define "svc.validateMedia" -}}
{{- $services := .Values.services -}}
{{- $gateway := $services.gateway -}}
{{- $inbox := $services.inbox -}}
{{- if and $inbox.enabled (not (dig "persistence" "enabled" false $inbox)) (not (index (default (dict) $inbox.env) "MEDIA_DIR")) -}}
{{- fail "services.inbox.persistence.enabled is false, so the media library has no storage (the root filesystem is read-only): enable it (a ReadWriteMany volume for more than one replica), or set services.inbox.env.MEDIA_DIR to a writable directory (/tmp/media: throwaway installs only, files are lost with the pod)" -}}
{{- end -}}
{{- if and $gateway.enabled $inbox.enabled -}}
{{- $genv := default (dict) $gateway.env -}}
{{- $ienv := default (dict) $inbox.env -}}
{{- $uploadBytes := int64 (default "16777216" (index $genv "UPLOAD_MAX_BYTES")) -}}
{{- $uploadFiles := int64 (default "10" (index $genv "UPLOAD_MAX_FILES")) -}}
{{- $mediaBytes := int64 (default "16777216" (index $ienv "MEDIA_MAX_BYTES")) -}}
{{- $mediaFiles := int64 (default "10" (index $ienv "MEDIA_MAX_FILES")) -}}
{{- if gt $uploadBytes $mediaBytes -}}
{{- fail (printf "services.gateway.env.UPLOAD_MAX_BYTES (%d) exceeds services.inbox.env.MEDIA_MAX_BYTES (%d): the gateway would accept files the inbox rejects; keep them equal" $uploadBytes $mediaBytes) -}}
{{- end -}}
{{- if gt $uploadFiles $mediaFiles -}}
{{- fail (printf "services.gateway.env.UPLOAD_MAX_FILES (%d) exceeds services.inbox.env.MEDIA_MAX_FILES (%d): the gateway would accept uploads the inbox rejects; keep them equal" $uploadFiles $mediaFiles) -}}
{{- end -}}
{{- if .Values.ingress.enabled -}}
{{- $key := "nginx.ingress.kubernetes.io/proxy-body-size" -}}
{{- $annotations := merge (dict) (default (dict) $gateway.public.ingressAnnotations) .Values.ingress.annotations -}}
{{- with (index $annotations $key) -}}
{{- $size := regexFindAll "^([0-9]+)([kKmMgG]?)$" . 1 -}}
{{- if not $size -}}
{{- fail (printf "services.gateway.public.ingressAnnotations %s: %q is not an nginx size (e.g. 200m)" $key .) -}}
{{- end -}}
{{- $number := int64 (regexFind "^[0-9]+" .) -}}
{{- $unit := lower (regexReplaceAll "^[0-9]+" . "") -}}
{{- $factor := get (dict "" 1 "k" 1024 "m" 1048576 "g" 1073741824) $unit | int64 -}}
{{- $limit := mul $number $factor -}}
{{- $needed := mul $uploadBytes $uploadFiles -}}
{{- if and (gt $number 0) (lt $limit $needed) -}}
{{- fail (printf "services.gateway.public.ingressAnnotations %s: %s (%d bytes) is below UPLOAD_MAX_FILES x UPLOAD_MAX_BYTES (%d bytes): uploads would fail with 413 at the proxy; raise it (with room for the multipart overhead)" $key . $limit $needed) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
