# ralph in a container, for a loop as a Kubernetes Job (docs/examples/kubernetes/) or any
# batch engine: ralph and git, run as a user that is not root, under tini as PID 1 (it
# hands the engine's SIGTERM to ralph and reaps what the agent leaves).
#
# The agent CLI is not in it: add yours in an image of your own, for example
#
#   FROM ralph:latest
#   USER root
#   RUN apt-get update && apt-get install -y --no-install-recommends nodejs npm \
#       && npm install --global @anthropic-ai/claude-code && rm -rf /var/lib/apt/lists/*
#   USER ralph
#
# Build: `podman build -t ralph .` (or buildah, or docker). docs/scale.md says what was
# and was not built where this was written.
ARG RUST_IMAGE=docker.io/library/rust:1-slim-bookworm
ARG BASE_IMAGE=docker.io/library/debian:bookworm-slim
# `source` builds ralph here; `prebuilt` takes `prebuilt/ralph` from the build context (a
# binary built for Debian 12 or older: scripts/image-test.sh, where no Rust image can be
# pulled). Only the stage named here is built.
ARG RALPH_BUILD=source

FROM ${RUST_IMAGE} AS build-source
WORKDIR /src
COPY . .
RUN cargo build --release --locked --package ralph-cli \
    && install -D target/release/ralph /out/ralph

FROM ${BASE_IMAGE} AS build-prebuilt
COPY prebuilt/ralph /out/ralph

FROM build-${RALPH_BUILD} AS build

FROM ${BASE_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends git ca-certificates tini \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/ralph /usr/local/bin/ralph
# A fixed uid, so that a volume's files can be owned by it (fsGroup, or chown).
RUN useradd --create-home --uid 10001 --user-group ralph
USER 10001:10001
WORKDIR /work
ENTRYPOINT ["/usr/bin/tini", "--", "ralph"]
CMD ["--help"]
