package v1alpha1

import "k8s.io/apimachinery/pkg/util/validation/field"

// MessageNetworkPolicyPeer is the message of NetworkPolicyPeer's CEL rule; its
// +kubebuilder:validation:XValidation marker repeats it word for word (a marker cannot name a
// constant), and the API packages' admission tests fail when the two differ.
const MessageNetworkPolicyPeer = "a peer of spec.networkPolicy.from needs a namespaceSelector, a podSelector or both; an empty selector ({}) selects every namespace or every pod"

// Validate checks the CEL rule of NetworkPolicyPeer (every peer of from selects something by
// namespace or pod), for the kinds' ValidateSpec: an object stored before the rule existed is
// reported, not deployed.
func (p *ServingNetworkPolicy) Validate(path *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	for i, peer := range p.From {
		if peer.NamespaceSelector == nil && peer.PodSelector == nil {
			errs = append(errs, field.Invalid(path.Child("from").Index(i), field.OmitValueType{}, MessageNetworkPolicyPeer))
		}
	}
	return errs
}
