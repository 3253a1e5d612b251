# The example JavaScript bot on Debian 12.
#   docker build -f deploy/node-bot.Dockerfile -t hoard-node-bot .
# Build stage: the SDK's packages, exactly as its lock file says.
FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /hoard/bots/node
COPY bots/node/package.json bots/node/package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bots/node ./

# Runtime stage: Node.js, the SDK and the example.
FROM debian:12-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /hoard
COPY proto proto
COPY --from=build /hoard/bots/node bots/node
ENV HOARD_SERVER=server:50051
USER nobody
ENTRYPOINT ["node", "bots/node/examples/random-bot.js"]
