package engine

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// ReferencedResources are the resources CRs may reference by name: the Secrets and ConfigMaps
// their pods read.
var ReferencedResources = []schema.GroupResource{Secrets, ConfigMaps}

// NewClusterReferenceSources are the operator's sources of referenced objects: for each of
// ReferencedResources, a metadata-only informer in every namespace (the list and watch carry
// no Secret's data) and a read of one object through kube. Resync is left to the controllers.
func NewClusterReferenceSources(kube kubernetes.Interface, meta metadata.Interface) map[schema.GroupResource]*ReferenceSource {
	sources := map[schema.GroupResource]*ReferenceSource{}
	for _, gr := range ReferencedResources {
		informer := metadatainformer.NewFilteredMetadataInformer(meta, corev1.SchemeGroupVersion.WithResource(gr.Resource), metav1.NamespaceAll, 0, cache.Indexers{}, nil).Informer()
		sources[gr] = NewReferenceSource(gr, informer, readCore(kube, gr))
	}
	return sources
}

// NewTypedReferenceSources are NewClusterReferenceSources built on typed informers, for fake
// clients (client-go's fake metadata client does not see the objects of a fake clientset). The
// objects they cache are cut down the same way.
func NewTypedReferenceSources(kube kubernetes.Interface) map[schema.GroupResource]*ReferenceSource {
	return map[schema.GroupResource]*ReferenceSource{
		Secrets:    NewReferenceSource(Secrets, coreinformers.NewSecretInformer(kube, metav1.NamespaceAll, 0, cache.Indexers{}), readCore(kube, Secrets)),
		ConfigMaps: NewReferenceSource(ConfigMaps, coreinformers.NewConfigMapInformer(kube, metav1.NamespaceAll, 0, cache.Indexers{}), readCore(kube, ConfigMaps)),
	}
}

// readCore reads one Secret or ConfigMap.
func readCore(kube kubernetes.Interface, gr schema.GroupResource) func(ctx context.Context, namespace, name string) (runtime.Object, error) {
	switch gr {
	case Secrets:
		return func(ctx context.Context, namespace, name string) (runtime.Object, error) {
			return kube.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
		}
	case ConfigMaps:
		return func(ctx context.Context, namespace, name string) (runtime.Object, error) {
			return kube.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
		}
	}
	return func(context.Context, string, string) (runtime.Object, error) {
		return nil, fmt.Errorf("%s cannot be referenced", gr)
	}
}
