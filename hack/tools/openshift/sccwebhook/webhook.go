// Package sccwebhook serves OpenShift's SecurityContextConstraints admission plugin
// (github.com/openshift/apiserver-library-go's sccadmission, the code OpenShift's kube-apiserver
// runs in process) as a mutating admission webhook of a plain kube-apiserver: the review's pod
// becomes the plugin's admission.Attributes, the plugin's Admit runs unchanged, and what it did to
// the pod goes back as a JSONPatch.
package sccwebhook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	coreapi "k8s.io/kubernetes/pkg/apis/core"
	// The internal core types and their conversions from v1, into legacyscheme: the plugin works
	// on internal pods, as it does inside OpenShift's kube-apiserver.
	_ "k8s.io/kubernetes/pkg/apis/core/install"
)

// Plugin is what the webhook needs of the SCC plugin: its mutating half.
type Plugin interface {
	admission.MutationInterface
}

// Handler answers AdmissionReviews of pods with the plugin's verdict.
type Handler struct {
	Plugin Plugin
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	review := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(body, review); err != nil || review.Request == nil {
		http.Error(w, fmt.Sprintf("not an AdmissionReview: %v", err), http.StatusBadRequest)
		return
	}
	resp := h.Review(r.Context(), review.Request)
	resp.UID = review.Request.UID
	out, err := json.Marshal(&admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// Review runs the plugin's Admit on one request.
func (h *Handler) Review(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	resp, err := h.review(ctx, req)
	if err != nil {
		return denied(err)
	}
	return resp
}

func (h *Handler) review(ctx context.Context, req *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, error) {
	if req.Resource.Group != "" || req.Resource.Resource != "pods" {
		// Only pods are registered; anything else is a misconfiguration, allowed unchanged as the
		// plugin itself would (it ignores every other resource).
		return &admissionv1.AdmissionResponse{Allowed: true}, nil
	}
	pod, err := internalPod(req.Object.Raw)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("decode the pod: %v", err))
	}
	var oldPod runtime.Object
	if len(req.OldObject.Raw) > 0 {
		if oldPod, err = internalPod(req.OldObject.Raw); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("decode the old pod: %v", err))
		}
	}
	name := req.Name
	if name == "" {
		name = pod.Name
	}
	attrs := &recordingAttributes{Attributes: admission.NewAttributesRecord(pod, oldPod,
		coreapi.Kind("Pod").WithVersion(""), req.Namespace, name,
		coreapi.Resource("pods").WithVersion(""), req.SubResource,
		admission.Operation(req.Operation), nil, req.DryRun != nil && *req.DryRun, userInfo(req.UserInfo))}

	if err := h.Plugin.Admit(ctx, attrs, nil); err != nil {
		return nil, err
	}
	patch, err := podPatch(req.Object.Raw, pod)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	resp := &admissionv1.AdmissionResponse{Allowed: true, AuditAnnotations: attrs.audit}
	if len(patch) > 0 {
		pt := admissionv1.PatchTypeJSONPatch
		resp.Patch, resp.PatchType = patch, &pt
	}
	return resp, nil
}

// internalPod decodes a v1 pod (as the API server sends it: defaulted) into the internal type.
func internalPod(raw []byte) (*coreapi.Pod, error) {
	external := &corev1.Pod{}
	if err := json.Unmarshal(raw, external); err != nil {
		return nil, err
	}
	internal := &coreapi.Pod{}
	if err := legacyscheme.Scheme.Convert(external, internal, nil); err != nil {
		return nil, err
	}
	return internal, nil
}

// podPatch is the JSONPatch from the pod as sent (raw) to the plugin's pod, converted back to v1.
func podPatch(raw []byte, pod *coreapi.Pod) ([]byte, error) {
	external := &corev1.Pod{}
	if err := legacyscheme.Scheme.Convert(pod, external, nil); err != nil {
		return nil, fmt.Errorf("convert the admitted pod to v1: %w", err)
	}
	// The review's pod carries no apiVersion and kind when a client left them out; the patch must
	// not add them.
	external.TypeMeta = metav1.TypeMeta{}
	var sent map[string]any
	if err := json.Unmarshal(raw, &sent); err != nil {
		return nil, err
	}
	if v, ok := sent["apiVersion"].(string); ok {
		external.APIVersion = v
	}
	if v, ok := sent["kind"].(string); ok {
		external.Kind = v
	}
	admitted, err := json.Marshal(external)
	if err != nil {
		return nil, err
	}
	ops, err := jsonpatch.CreatePatch(raw, admitted)
	if err != nil {
		return nil, fmt.Errorf("diff the admitted pod: %w", err)
	}
	if len(ops) == 0 {
		return nil, nil
	}
	return json.Marshal(ops)
}

func userInfo(u authenticationv1.UserInfo) user.Info {
	extra := map[string][]string{}
	for k, v := range u.Extra {
		extra[k] = []string(v)
	}
	return &user.DefaultInfo{Name: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra}
}

// recordingAttributes keeps the plugin's audit annotations (which SCC was chosen and why, which
// were denied) for the response: the API server records them as <webhook name>/<key>, so only the
// part of the plugin's key after its domain is kept (a key may hold one slash).
type recordingAttributes struct {
	admission.Attributes
	audit map[string]string
}

func (r *recordingAttributes) AddAnnotation(key, value string) error {
	if r.audit == nil {
		r.audit = map[string]string{}
	}
	r.audit[key[strings.LastIndex(key, "/")+1:]] = value
	return nil
}

func (r *recordingAttributes) AddAnnotationWithLevel(key, value string, _ auditinternal.Level) error {
	return r.AddAnnotation(key, value)
}

// denied is the response for an error of the plugin: its status (403 Forbidden with the plugin's
// message, which the API server passes on to the client) or, for any other error, a 500.
func denied(err error) *admissionv1.AdmissionResponse {
	status := apierrors.NewInternalError(err).ErrStatus
	if s, ok := err.(apierrors.APIStatus); ok {
		status = s.Status()
	}
	klog.V(2).InfoS("pod denied", "reason", status.Reason, "message", status.Message)
	return &admissionv1.AdmissionResponse{Allowed: false, Result: &status}
}
