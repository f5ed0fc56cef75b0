package main

import (
	_ "github.com/onsi/ginkgo/v2"
	_ "github.com/onsi/gomega"
	_ "github.com/openshift/library-go/pkg/controller/controllercmd"
	_ "github.com/openshift/library-go/pkg/controller/factory"
	_ "github.com/openshift/library-go/pkg/operator/genericoperatorclient"
	_ "github.com/openshift/library-go/pkg/operator/loglevel"
	_ "github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	_ "github.com/openshift/library-go/pkg/operator/resource/resourcehash"
	_ "github.com/openshift/library-go/pkg/operator/resource/resourceread"
	_ "github.com/openshift/library-go/pkg/operator/resource/resourcemerge"
	_ "github.com/openshift/library-go/pkg/operator/v1helpers"
	_ "github.com/openshift/library-go/pkg/operator/events"
	_ "github.com/openshift/library-go/pkg/operator/management"
	_ "github.com/openshift/api/operator/v1"
	_ "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	_ "github.com/spf13/cobra"
	_ "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	_ "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	_ "k8s.io/client-go/dynamic/dynamicinformer"
	_ "k8s.io/client-go/kubernetes/fake"
	_ "k8s.io/client-go/dynamic/fake"
	_ "k8s.io/client-go/discovery/fake"
	_ "k8s.io/component-base/cli"
	_ "k8s.io/klog/v2"
	_ "k8s.io/utils/ptr"
	_ "sigs.k8s.io/lws/api/config/v1alpha1"
	_ "sigs.k8s.io/lws/api/leaderworkerset/v1"
	_ "sigs.k8s.io/yaml"
)

func main() {}
