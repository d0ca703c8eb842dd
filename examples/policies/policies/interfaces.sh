#!/bin/sh
# A model policy: reads the networks it targets as JSON on stdin and prints,
# as JSON on stdout, one interface for each, which depends on its network.
#
# The input is canonical JSON (one line, keys in a fixed order), so plain
# grep and sed find each resource's address and type; a policy in another
# language would parse it. XOSPLAN_POLICY is the policy's name, the prefix
# of the addresses it derives ("interfaces.net-a-if").
set -eu
in=$(cat)
nets=$(printf '%s' "$in" | grep -o '"address":"[^"]*","type":"tosca.nodes.network.Network"' |
  sed 's/"address":"\([^"]*\)".*/\1/')
printf '{"resources":['
sep=''
for net in $nets; do
  printf '%s{"name":"%s-if","type":"example.nodes.Interface","spec":{"properties":{"network":"%s","mtu":1500}}}' "$sep" "$net" "$net"
  sep=','
done
printf '],"edges":['
sep=''
for net in $nets; do
  printf '%s{"source":"%s.%s-if","target":"%s","kind":"depends_on","name":"network"}' "$sep" "$XOSPLAN_POLICY" "$net" "$net"
  sep=','
done
printf ']}\n'
