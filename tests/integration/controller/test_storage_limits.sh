#!/usr/bin/env bash
# test_storage_limits.sh - the task storage (/work) and the scratch storage
# (/tmp, HOME) hold what the spec allows and no more: bytes and inodes. A
# box in the execute phase writes under the limit (must work: the control)
# and over it (must fail), then creates files until one is refused.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
ctl_start

# fill DIR TAG: small write, big write, then count creatable files.
fill='fill() {
  dd if=/dev/zero of=$1/half bs=1024 count=256 2>/dev/null &&
    echo $2-SMALL-OK || echo $2-SMALL-FAILED
  dd if=/dev/zero of=$1/big bs=1024 count=2048 2>/dev/null &&
    echo $2-BIG-OK || echo $2-BIG-FAILED
  rm -f $1/half $1/big
  i=0
  while [ $i -lt 300 ]; do touch $1/n$i 2>/dev/null || break; i=$((i+1)); done
  echo $2-FILES=$i
  rm -f $1/n*
}
echo HOME=$HOME
touch $HOME/.probe 2>/dev/null && echo HOME-WRITABLE; rm -f $HOME/.probe
fill /work WORK
fill /tmp TMP'
script=$(printf '%s' "$fill" | sed 's/\\/\\\\/g; s/"/\\"/g' |
    awk '{printf "%s\\n", $0}')
apply_spec limits execute "image: $BOX_IMAGE" \
    "command: [sh, -c, \"$script\"]" \
    "workspace: {source: small, size: 1Mi, inodes: 100}" \
    "scratch: {size: 1Mi, inodes: 100}"

check_eq "limits: Succeeded (the script itself exits 0)" Succeeded \
    "$(wait_terminal limits 240)"
out=$(agent_output limits)
echo "# limits output:"
sed 's/^/#   /' <<<"$out"
check_match "HOME is set" 'HOME=/' "$out"
check_match "HOME is writable (scratch)" 'HOME-WRITABLE' "$out"
for t in WORK TMP; do
    check_match "$t: 256 KiB fits (control)" "$t-SMALL-OK" "$out"
    check_match "$t: 2 MiB over a 1Mi limit fails" "$t-BIG-FAILED" "$out"
    files=$(sed -n "s/^$t-FILES=\([0-9]*\)$/\1/p" <<<"$out")
    check_match "$t: file count reported" '^[0-9]+$' "$files"
    check "$t: files can be created (control: $files)" test "$files" -ge 50
    check "$t: the 100-inode limit stops file creation ($files < 300)" \
        test "$files" -lt 300
done
ctl_finish
