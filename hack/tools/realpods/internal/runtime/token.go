package runtime

import (
	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

var everything = labels.Everything()

type authTokenRequest struct {
	audiences []string
	seconds   int64
	pod       *corev1.Pod
}

func (a authTokenRequest) build() *authv1.TokenRequest {
	return &authv1.TokenRequest{Spec: authv1.TokenRequestSpec{
		Audiences:         a.audiences,
		ExpirationSeconds: &a.seconds,
		BoundObjectRef:    &authv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: a.pod.Name, UID: a.pod.UID},
	}}
}
