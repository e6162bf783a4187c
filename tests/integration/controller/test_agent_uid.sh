#!/usr/bin/env bash
# test_agent_uid.sh - each attempt's agent runs as a uid of its own
# (config without agentUser: agentUidBase + the bits of its /24), recorded
# in status.agentUser: two boxes running at once report different uids,
# each the one its status names, from the range (>= agentUidBase); the
# keeper runs as it and the workspace is its (the agent writes /work in
# execute); the per-uid limits (nproc) so count per box. The inspect's
# User is checked by the container.user drift rule like every field.
#
# Negative control: with agentUser "1000:1000" in the config (the shared
# user of before) the same two boxes report the same uid.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
sed -i '/^agentUser:/d' "$CONFIG"
echo "agentUidBase: 200000" >>"$CONFIG"
PROBE='id; echo w >/work/by-agent && echo WROTE; sleep 3'

# box NAME: one execute spec that prints its ids and writes /work.
box() {
    apply_spec "$1" execute "image: $BOX_IMAGE" "command: [sh, -c, \"$PROBE\"]" \
        "workspace: {source: small, size: 4Mi, inodes: 1000}"
}
# uid_of NAME: the uid the agent reported.
uid_of() { agent_output "$1" | sed -n 's/^uid=\([0-9]*\).*/\1/p' | head -n 1; }

ctl_start
box ua
box ub
wait_phase ua Running 120
check_eq "ua: the keeper runs as the attempt's user" \
    "$(status_field ua .agentUser)" \
    "$(docker inspect -f '{{.Config.User}}' "$(object_of ua keeper)")"
for n in ua ub; do
    check_eq "$n: Succeeded" Succeeded "$(wait_terminal "$n" 120)"
    u=$(uid_of "$n")
    echo "# $n: uid $u, status.agentUser $(status_field "$n" .agentUser)"
    check_eq "$n: the agent ran as status.agentUser" \
        "$u:$u" "$(status_field "$n" .agentUser)"
    check "$n: from the range (>= agentUidBase 200000)" test "$u" -ge 200000
    check_match "$n: it owns its workspace" WROTE "$(agent_output "$n")"
done
check "two boxes at once: two uids" test "$(uid_of ua)" != "$(uid_of ub)"
ctl_stop

sed -i '/^agentUidBase:/d' "$CONFIG"
echo 'agentUser: "1000:1000"' >>"$CONFIG"
ctl_start
box uc
box ud
for n in uc ud; do
    check_eq "control $n: Succeeded" Succeeded "$(wait_terminal "$n" 120)"
done
check_eq "control: with agentUser set, both run as it" "1000 1000" \
    "$(uid_of uc) $(uid_of ud)"
ctl_finish
