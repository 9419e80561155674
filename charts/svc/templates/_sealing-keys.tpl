{{/*
Checks of a block of sealing keys (root context), which the generic library chart cannot know about:
webhookSecretsKeys (WEBHOOK_SECRETS_KEYS, what webhook-ingress seals the providers' signing secrets with, decision
0014), channelsSecretsKeys (CHANNELS_SECRETS_KEYS, what channels seals the web integrations' identity secrets with,
decision 0075) and partnerSecretsKeys (PARTNER_SECRETS_KEYS, what partner seals the providers' webhook secrets with). With NODE_ENV=production (every pod of this chart) the service refuses to start without its keys. So
instead of pods crash-looping on a missing Secret:
  - rendering fails while the service (or any service reading the block through secretEnv) is enabled and neither
    <block>.existingSecret nor <block>.value is set, saying how to make a key. The chart never generates one: a key
    that changed on the next upgrade would make every stored secret unreadable;
  - the service must receive the variable (its secretEnv entry, or an extraEnv entry of your own);
  - key ids in `value` must be unique (values.schema.json checks each entry's shape; a regex cannot see duplicates).
Arguments: root, block (values key), service (services.<key>), variable (env var), sealed (what the keys encrypt).
*/}}
{{- define "svc.validateSealingKeys" -}}
{{- $root := .root -}}
{{- $block := .block -}}
{{- $variable := .variable -}}
{{- $k := index $root.Values $block -}}
{{- $services := $root.Values.services -}}
{{- $owner := index $services .service -}}
{{- $readers := list -}}
{{- range $name, $svc := $services -}}
{{- if $svc.enabled -}}
{{- range (default (list) (index $svc "secretEnv")) -}}
{{- if eq .from $block -}}
{{- $readers = append $readers (printf "services.%s" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and $owner $owner.enabled -}}
{{- $names := list -}}
{{- range (concat (default (list) (index $owner "secretEnv")) (default (list) $owner.extraEnv)) -}}
{{- $names = append $names .name -}}
{{- end -}}
{{- if not (has $variable $names) -}}
{{- fail (printf "services.%s is enabled but gets no %s, without which it does not start: keep its secretEnv entry {name: %s, from: %s} (or provide the variable through services.%s.extraEnv)" .service $variable $variable $block .service) -}}
{{- end -}}
{{- end -}}
{{- if and $readers (not $k.existingSecret) (not $k.value) -}}
{{- $secret := include "svc-lib.secretBlockName" (dict "root" $root "from" $block) -}}
{{- fail (printf `%s: %s needs %s (the keys that encrypt %s; it refuses to start without them). Set %s.existingSecret to a Secret you manage holding them under key %s (recommended), e.g. kubectl -n %s create secret generic %s --from-literal=%s="k1:$(openssl rand -base64 32)", or %s.value for a throwaway install (stored in the Helm release). Format: comma-separated <keyId>:<base64 of 32 random bytes>, the first one encrypts. Generate a key with: node -e "console.log('k1:'+require('crypto').randomBytes(32).toString('base64'))" (or: echo "k1:$(openssl rand -base64 32)"). Keep it safe: without it the stored secrets cannot be read (docs/deploy.md, Secrets)` $block (join ", " $readers) $variable .sealed $block $k.key $root.Release.Namespace $secret $k.key $block) -}}
{{- end -}}
{{- if and $readers $k.value (not $k.existingSecret) -}}
{{- $ids := list -}}
{{- range (splitList "," $k.value) -}}
{{- $id := trim (first (splitList ":" .)) -}}
{{- if has $id $ids -}}
{{- fail (printf "%s.value: key id %q appears twice; every <keyId> must be unique (the first key encrypts, each sealed value names the id of its key)" $block $id) -}}
{{- end -}}
{{- $ids = append $ids $id -}}
{{- end -}}
{{- end -}}
{{- end -}}
