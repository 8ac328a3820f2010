#!/usr/bin/env bash
# Builds the container image of the Dockerfile with buildah (Debian's package: no daemon,
# chroot isolation, the vfs store, so it works inside a container and without privileges
# a daemon would need), then runs `ralph --version` in it as the image's user.
#
# Where an image registry is reachable the Dockerfile builds as written (`RALPH_BUILD=source`
# with the Rust image). Where only package registries are (this project's machines), the
# base image is made from Debian's packages with debootstrap and tagged as the
# `debian:bookworm-slim` the Dockerfile starts from, and ralph is built here and handed in
# (`RALPH_BUILD=prebuilt`): the image's own steps (git, tini, the user) run as written.
#
#   scripts/image-test.sh        # prints the image's `ralph --version`
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASE=docker.io/library/debian:bookworm-slim
TAG=localhost/ralph:test
STORE=(--storage-driver vfs)
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

need() {
    command -v "$1" >/dev/null && return
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
}
need buildah buildah

if ! buildah "${STORE[@]}" inspect --type image "$BASE" >/dev/null 2>&1 &&
    ! buildah "${STORE[@]}" pull --quiet "$BASE" >/dev/null 2>&1; then
    echo "image-test: no registry for $BASE: making it from Debian's packages" >&2
    need debootstrap debootstrap
    debootstrap --variant=minbase bookworm "$WORK/rootfs" http://deb.debian.org/debian >/dev/null
    rm -rf "$WORK"/rootfs/var/cache/apt/archives/*.deb "$WORK"/rootfs/var/lib/apt/lists/*
    ctr="$(buildah "${STORE[@]}" from scratch)"
    mnt="$(buildah "${STORE[@]}" mount "$ctr")"
    cp -a "$WORK/rootfs/." "$mnt/"
    buildah "${STORE[@]}" umount "$ctr" >/dev/null
    buildah "${STORE[@]}" config --cmd /bin/bash "$ctr"
    buildah "${STORE[@]}" commit --quiet "$ctr" "$BASE" >/dev/null
    buildah "${STORE[@]}" rm "$ctr" >/dev/null
    rm -rf "$WORK/rootfs"
fi

# ralph for the image, built here (Debian 12, as the image).
(cd "$REPO" && cargo build --quiet --locked --package ralph-cli)
mkdir -p "$WORK/context/prebuilt"
# CARGO_TARGET_DIR moves the build (a shared target directory); relative to the repository.
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
[[ "$TARGET_DIR" == /* ]] || TARGET_DIR="$REPO/$TARGET_DIR"
cp "$TARGET_DIR/debug/ralph" "$WORK/context/prebuilt/ralph"
# What the build leaves that nothing uses afterwards goes: the image an earlier run left
# under the tag, and the working containers and untagged images of the build's stages
# (the stage holding this run's ralph is new each time). The vfs store keeps whole
# copies: each run used to leave about 650 MB behind. Only what appeared during this
# build is removed, nothing else in the store.
listed() { buildah "${STORE[@]}" "$@" 2>/dev/null | sort; }
old="$(buildah "${STORE[@]}" images --quiet --no-trunc "$TAG" 2>/dev/null || true)"
containers_before="$(listed containers --quiet --notruncate)"
images_before="$(listed images --quiet --no-trunc --all)"
buildah "${STORE[@]}" build --quiet --isolation chroot --pull-never \
    --build-arg RALPH_BUILD=prebuilt -f "$REPO/Dockerfile" -t "$TAG" "$WORK/context" >/dev/null
comm -13 <(echo "$containers_before") <(listed containers --quiet --notruncate) |
    xargs -r buildah "${STORE[@]}" rm >/dev/null 2>&1 || true
new="$(buildah "${STORE[@]}" images --quiet --no-trunc "$TAG")"
if [[ -n "$old" && "$old" != "$new" ]]; then
    buildah "${STORE[@]}" rmi "$old" >/dev/null 2>&1 || true
fi
comm -13 <(echo "$images_before") <(listed images --quiet --no-trunc --filter dangling=true) |
    xargs -r buildah "${STORE[@]}" rmi >/dev/null 2>&1 || true

ctr="$(buildah "${STORE[@]}" from "$TAG")"
trap 'buildah "${STORE[@]}" rm "$ctr" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
user="$(buildah "${STORE[@]}" run --isolation chroot "$ctr" -- id -u)"
[[ "$user" == 10001 ]] || { echo "image-test: runs as uid $user, not 10001" >&2; exit 1; }
buildah "${STORE[@]}" run --isolation chroot "$ctr" -- git --version >/dev/null
buildah "${STORE[@]}" run --isolation chroot "$ctr" -- /usr/bin/tini --version >/dev/null
buildah "${STORE[@]}" run --isolation chroot "$ctr" -- ralph --version
