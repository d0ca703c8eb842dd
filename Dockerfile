# xosplan in a container: `make image` (IMAGE_TARGET=minimal, the default)
# or `make image IMAGE_TARGET=full`.
#
#   minimal  Debian 12 slim, the static xosplan binary and nothing else the
#            drivers need: validate, plan, sync of noop/XOS resources, the
#            language server, placement queries.
#   full     minimal plus python3, ansible-core and an SSH client, which
#            the exec driver's .py implementations and the Ansible driver run.
#
# Both run as the unprivileged user xosplan (uid 10001) in /work; mount the
# configuration there: docker run --rm -v "$PWD:/work" xosplan:dev validate .

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.stampedVersion=${VERSION}" -o /out/xosplan ./cmd/xosplan

FROM debian:12-slim AS minimal
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --uid 10001 --create-home --shell /usr/sbin/nologin xosplan \
    && mkdir /work && chown xosplan /work
COPY --from=build /out/xosplan /usr/local/bin/xosplan
COPY docs/man/ /usr/local/share/man/man1/
USER 10001
WORKDIR /work
ENTRYPOINT ["xosplan"]
CMD ["--help"]

FROM minimal AS full
USER root
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        python3 ansible-core openssh-client sshpass \
    && rm -rf /var/lib/apt/lists/*
USER 10001
