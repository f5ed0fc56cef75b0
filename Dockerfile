# llm-infra-operator image. Builds offline from the committed vendor/ directory.
#   docker build --build-arg GIT_VERSION=$(git describe --tags --always) \
#                --build-arg GIT_COMMIT=$(git rev-parse HEAD) -t quay.io/llm-infra/llm-infra-operator .
FROM golang:1.26 AS builder
# .git is not in the build context (.dockerignore), so the version comes in as arguments.
ARG GIT_VERSION=v0.0.0-dev
ARG GIT_COMMIT=unknown
WORKDIR /src
COPY . .
RUN CGO_ENABLED=0 go build -mod=vendor -trimpath \
      -ldflags "-X github.com/llm-infra/llm-infra-operator/pkg/version.gitVersion=${GIT_VERSION} -X github.com/llm-infra/llm-infra-operator/pkg/version.gitCommit=${GIT_COMMIT}" \
      -o /out/llm-infra-operator ./cmd/llm-infra-operator

# distroless/static: no shell, no package manager. Its PATH includes /usr/bin, so the Deployment
# can run `llm-infra-operator operator`.
FROM gcr.io/distroless/static:nonroot
COPY --from=builder /out/llm-infra-operator /usr/bin/llm-infra-operator
# Numeric, so the kubelet can check runAsNonRoot without looking the user up.
USER 65532:65532
ENTRYPOINT ["/usr/bin/llm-infra-operator"]
