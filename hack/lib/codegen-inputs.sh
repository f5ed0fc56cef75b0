#!/usr/bin/env bash
# What hack/update-codegen.sh's generators read: the API packages (every GROUP/VERSION under
# pkg/apis whose doc.go names its group: APIS_PKGS, API_DIRS, API_GROUP_VERSIONS), the packages of
# shared types that get deepcopy only (SHARED_PKGS), and the apply configurations of other
# modules our types use instead of copies (EXTERNAL_APPLYCONFIGS). Separate from the generators'
# runs, so what is generated from what reads in one place.
# Sourced by hack/update-codegen.sh in the repository's root (the globs are relative to it),
# after MODULE; sets only variables.

# One entry per API package: GROUP/VERSION under pkg/apis, every directory whose doc.go names
# its group (+groupName=). pkg/operator/operands's TestRegistryMatchesTheRepository fails when
# a registered kind's API package is not one of them, or one of them has no registered kind.
API_GROUP_VERSIONS=()
for doc in pkg/apis/*/*/doc.go; do
  if grep -q '+groupName=' "${doc}"; then
    dir="$(dirname "${doc}")"
    API_GROUP_VERSIONS+=("${dir#pkg/apis/}")
  fi
done
APIS_PKGS=()
API_DIRS=()
for gv in "${API_GROUP_VERSIONS[@]}"; do
  APIS_PKGS+=("${MODULE}/pkg/apis/${gv}")
  API_DIRS+=("pkg/apis/${gv}")
done
# Packages of types that several API groups embed (pkg/apis/networkpolicy/v1alpha1: the
# spec.networkPolicy of the Gateway, MCP, Agent, Orchestrator and LLMBatchGateway, declared
# once): no group of their own (no +groupName=), so no client, lister or informer; deepcopy only.
# The groups' apply configurations hold their types as they are (applyconfiguration-gen makes
# apply configurations for the groups' packages only).
SHARED_PKGS=()
for doc in pkg/apis/*/*/doc.go; do
  if ! grep -q '+groupName=' "${doc}" && grep -q '+k8s:deepcopy-gen=package' "${doc}"; then
    SHARED_PKGS+=("${MODULE}/$(dirname "${doc}")")
  fi
done

# openshift/api and k8s.io/api types embedded in (or nested in) our types, mapped to the existing
# apply configurations of openshift/client-go and client-go instead of generating copies of them
# (applyconfiguration-gen maps metav1's types, Condition included, by itself).
OPENSHIFT_APPLY="github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
EXTERNAL_APPLYCONFIGS="$(printf '%s,' \
  "github.com/openshift/api/operator/v1.OperatorSpec:${OPENSHIFT_APPLY}" \
  "github.com/openshift/api/operator/v1.OperatorStatus:${OPENSHIFT_APPLY}" \
  "github.com/openshift/api/operator/v1.OperatorCondition:${OPENSHIFT_APPLY}" \
  "github.com/openshift/api/operator/v1.GenerationStatus:${OPENSHIFT_APPLY}" \
  "k8s.io/api/core/v1.Toleration:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/core/v1.ResourceRequirements:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/core/v1.LocalObjectReference:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/core/v1.SecretReference:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/core/v1.SecretKeySelector:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/core/v1.ConfigMapKeySelector:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/core/v1.EnvVar:k8s.io/client-go/applyconfigurations/core/v1" \
  "k8s.io/api/autoscaling/v2.MetricSpec:k8s.io/client-go/applyconfigurations/autoscaling/v2" \
  "k8s.io/api/autoscaling/v2.HorizontalPodAutoscalerBehavior:k8s.io/client-go/applyconfigurations/autoscaling/v2")"
EXTERNAL_APPLYCONFIGS="${EXTERNAL_APPLYCONFIGS%,}"
