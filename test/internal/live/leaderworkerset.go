package live

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// LeaderWorkerSets is the resource of a user's LeaderWorkerSets, which the suites make to show
// the operator keeps them (the local cluster runs no LWS controller, so nothing else acts on
// them).
var LeaderWorkerSets = schema.GroupVersionResource{Group: "leaderworkerset.x-k8s.io", Version: "v1", Resource: "leaderworkersets"}

// PauseLeaderWorkerSet is a user's LeaderWorkerSet of one group of size pods, each the pause
// image: the smallest one the LWS webhooks admit.
func PauseLeaderWorkerSet(namespace, name string, size int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "leaderworkerset.x-k8s.io/v1",
		"kind":       "LeaderWorkerSet",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
		"spec": map[string]any{
			"replicas": int64(1),
			"leaderWorkerTemplate": map[string]any{
				"size": size,
				"workerTemplate": map[string]any{"spec": map[string]any{
					"containers": []any{map[string]any{"name": "worker", "image": "registry.k8s.io/pause:3.10"}},
				}},
			},
		},
	}}
}
