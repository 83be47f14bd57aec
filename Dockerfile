# rgfx-server image: the server and the rgfx client on Debian bookworm.
#
#   podman build --format docker -t rgfx-server .   (or: docker build -t rgfx-server .)
#   (podman's default OCI format has no HEALTHCHECK; --format docker keeps it)
#   podman run --device nvidia.com/gpu=all -p 50051:50051 -p 9464:9464 rgfx-server
#
# Two stages: the builder installs what CI installs (scripts/setup) and runs
# the same build script; the runtime stage gets only the two binaries and the
# Debian packages of the shared libraries they link, found by ldd in the
# builder, so a library added to the build reaches the image without an edit
# here. docs/OPERATIONS.md covers running it on GPU nodes.

FROM debian:bookworm AS builder
WORKDIR /src
# setup alone first: its layer (the toolchain) is reused while only sources change.
COPY scripts/setup scripts/setup
RUN scripts/setup && rm -rf /var/lib/apt/lists/*
COPY . .
# Release, server and client only (no tests): the image build is part of CI
# on a 2-core machine.
RUN BUILD_TYPE=Release BUILD_DIR=/build scripts/build -DRGFX_BUILD_TESTS=OFF \
 && mkdir -p /out/bin \
 && cp /build/service/rgfx-server /build/client/rgfx /out/bin/ \
 && strip --strip-unneeded /out/bin/*
# The Debian package of every shared library the binaries load. Vulkan is not
# among them: volk opens libvulkan at run time, so the runtime stage names it.
RUN set -e; for lib in $(ldd /out/bin/* | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u); do \
      pkg=$(dpkg -S "*/$(basename "$(readlink -f "$lib")")" | head -1 | cut -d: -f1); \
      [ -n "$pkg" ] || { echo "no package owns $lib" >&2; exit 1; }; \
      echo "$pkg"; \
    done | sort -u > /out/runtime-packages \
 && cat /out/runtime-packages

FROM debian:bookworm
COPY --from=builder /out/runtime-packages /tmp/runtime-packages
# libvulkan1: the loader volk opens. mesa-vulkan-drivers: lavapipe, the CPU
# device used when no GPU driver is mounted (the NVIDIA driver's own ICD comes
# from the host through the NVIDIA container runtime).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      $(cat /tmp/runtime-packages) libvulkan1 mesa-vulkan-drivers \
 && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages
COPY --from=builder /out/bin/ /usr/local/bin/
# Fail the build here, not at the first start, if a library is missing.
RUN ! ldd /usr/local/bin/rgfx-server /usr/local/bin/rgfx | grep 'not found'
# A fixed numeric uid so Kubernetes' runAsNonRoot can verify it.
RUN groupadd --system --gid 10001 rgfx \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin rgfx
USER 10001:10001
# The NVIDIA container runtime mounts the driver's Vulkan ICD only with the
# "graphics" capability; compute alone is CUDA.
ENV NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility,graphics
# gRPC, Prometheus /metrics.
EXPOSE 50051 9464
# SERVING only once the device works; the first start compiles pipelines.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["rgfx", "health", "--server=127.0.0.1:50051", "--timeout=4"]
# The server's defaults bind loopback only; in a container it must listen on
# all interfaces. Arguments given to `run` are appended (later flags win).
ENTRYPOINT ["rgfx-server", "--listen=0.0.0.0:50051", "--metrics_listen=0.0.0.0:9464"]
