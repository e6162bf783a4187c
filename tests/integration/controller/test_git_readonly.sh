#!/usr/bin/env bash
# test_git_readonly.sh - a workspace's .git is a storage of its own,
# mounted read-only at /work/.git in every phase: writing,
# hard-linking, renaming or removing anything under it fails, and so do
# `mv /work/.git` and `rm -rf /work/.git` (it is a mount point); the
# worktree follows the phase (writable in execute and fix only); symlinks
# that stay inside the checkout keep working; the digest of the metadata
# before the run equals the digest after it, and the status records both.
#
# Negative control: the same probe run in a container of the test's own
# that holds the same checkout without the read-only metadata mount
# reports every breach, so the probe's findings are what the test checks.
source "$(dirname "$0")/lib_controller.sh"
ctl_init
src=$WS_ROOT/withgit
mkdir -p "$src/.git/objects" "$src/.git/refs/heads" "$src/.git/hooks" "$src/src"
echo "ref: refs/heads/main" >"$src/.git/HEAD"
printf '[core]\n\tbare = false\n' >"$src/.git/config"
echo "0123abcd" >"$src/.git/refs/heads/main"
echo "print('hi')" >"$src/src/app.py"
ln -s src/app.py "$src/link-inside"
ctl_start

# Each line prints one finding; "BREACH" marks anything that got through.
probe='cat /work/.git/HEAD
cat /work/link-inside
echo x >/work/.git/x 2>/dev/null && echo BREACH-write || echo ok-write
echo x >>/work/.git/config 2>/dev/null && echo BREACH-append || echo ok-append
echo evil >/work/.git/hooks/post-checkout 2>/dev/null && echo BREACH-hook || echo ok-hook
touch /work/.git/refs/heads/evil 2>/dev/null && echo BREACH-refs || echo ok-refs
ln /work/src/app.py /work/.git/hardlink 2>/dev/null && echo BREACH-link || echo ok-link
mv /work/.git/HEAD /work/.git/HEAD2 2>/dev/null && echo BREACH-rename || echo ok-rename
mv /work/.git /work/moved-git 2>/dev/null && echo BREACH-mv || echo ok-mv
rm -rf /work/.git 2>/dev/null
test -e /work/.git/HEAD && echo ok-rm || echo BREACH-rm
touch /work/new.txt 2>/dev/null && echo WORK-WRITABLE || echo WORK-READONLY'
script=$(printf '%s' "$probe" | awk '{printf "%s\\n", $0}')
PHASES="planning questions review execute fix"
for p in $PHASES; do
    apply_spec "git-$p" "$p" "image: $BOX_IMAGE" \
        "command: [sh, -c, \"$script\"]" \
        "workspace: {source: withgit, size: 4Mi, inodes: 1000}"
done
for p in $PHASES; do
    n=git-$p
    wait_phase "$n" Succeeded 240
    out=$(agent_output "$n")
    echo "# $n output:"
    sed 's/^/#   /' <<<"$out"
    check_match "$n: .git is readable" 'ref: refs/heads/main' "$out"
    check_match "$n: a symlink inside the checkout works" "print\('hi'\)" "$out"
    for f in write append hook refs link rename mv rm; do
        check_match "$n: $f under /work/.git fails" "ok-$f" "$out"
    done
    check "$n: no breach at all" not grep -q BREACH <<<"$out"
    case $p in
    execute | fix) want=WORK-WRITABLE ;;
    *) want=WORK-READONLY ;;
    esac
    check_match "$n: the worktree is ${want#WORK-}" "$want" "$out"
    # the digests, once cleanup read the metadata back from the keeper
    for _ in $(seq 1 120); do
        [ -n "$(status_field "$n" .git.digestAfter)" ] && break
        sleep 0.25
    done
    before=$(status_field "$n" .git.digestBefore)
    check_match "$n: status.git.digestBefore recorded" '^sha256:[0-9a-f]{64}$' \
        "$before"
    check_eq "$n: digest after equals digest before" "$before" \
        "$(status_field "$n" .git.digestAfter)"
    check_eq "$n: condition GitIntact" True \
        "$(condition_field "$n" GitIntact status)"
done
uid=$(inv_uid git-execute)
check_no_objects "git-execute: its git volume is removed too" \
    "agentctl.dev/uid=$uid" 60

# ---- negative control: the same probe without the read-only mount ----
vol=ctlgit-$CTL_RUN
docker volume create --label "$TEST_LABEL" "$vol" >/dev/null
docker run --rm --label "$TEST_LABEL" -v "$vol:/work" -v "$src:/src:ro" \
    --network none "$BOX_IMAGE" sh -c 'cp -a /src/. /work/' >/dev/null
ctl_out=$(docker run --rm --label "$TEST_LABEL" -v "$vol:/work" \
    --network none "$BOX_IMAGE" sh -c "$(printf '%b' "$script")" 2>&1 || true)
echo "# control output:"
sed 's/^/#   /' <<<"$ctl_out"
for f in write append hook refs link rename; do
    check_match "control: without the mount, $f under .git gets through" \
        "BREACH-$f" "$ctl_out"
done
docker volume rm "$vol" >/dev/null
ctl_finish
