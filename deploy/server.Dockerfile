# The Hoard server and tournament runner: the `hoard` program on Debian 12.
#   docker build -f deploy/server.Dockerfile -t hoard .
# Build stage: Debian's development packages and the full build.
FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      g++ cmake ninja-build pkg-config \
      libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler grpc-proto \
      libabsl-dev libsqlite3-dev libssl-dev libgtest-dev libgmock-dev libbenchmark-dev \
      libboost-dev libxxhash-dev libpq-dev libcli11-dev libgoogle-perftools-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY proto proto
COPY engine engine
COPY db db
COPY bots bots
COPY tournament tournament
COPY service service
COPY tests tests
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
 && cmake --build build --target hoard

# Runtime stage: the program and the shared libraries it needs.
FROM debian:12-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libgrpc++1.51 libgrpc29 libprotobuf32 libabsl20220623 libsqlite3-0 libssl3 \
      libxxhash0 libpq5 libtcmalloc-minimal4 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --create-home --home-dir /home/hoard hoard \
 && mkdir -p /data && chown hoard /data
COPY --from=build /src/build/hoard /usr/local/bin/hoard
COPY tournament/examples /etc/hoard/tournaments
USER hoard
WORKDIR /data
VOLUME /data
EXPOSE 50051 8080
# `hoard serve` reads HOARD_SERVE_<FLAG> for each flag (docs/operations.md).
ENV HOARD_SERVE_LISTEN=0.0.0.0:50051 \
    HOARD_SERVE_HTTP=0.0.0.0:8080 \
    HOARD_SERVE_DB=/data/hoard.db \
    HOARD_SERVE_LOG_FORMAT=json
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 \
  CMD ["hoard", "health", "--server", "127.0.0.1:50051"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["hoard"]
CMD ["serve"]
