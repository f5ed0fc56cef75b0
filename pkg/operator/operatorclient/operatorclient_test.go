package operatorclient

import (
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/json"
	"k8s.io/utils/ptr"
)

// managedFields entries shaped as the apiserver records them: spec fields through the main
// resource, status fields through the status subresource.
var (
	specOwner = map[string]any{
		"manager": "spec-owner", "operation": "Apply", "apiVersion": "operator.openshift.io/v1",
		"fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{
			"f:metadata": map[string]any{"f:labels": map[string]any{"f:team": map[string]any{}}},
			"f:spec":     map[string]any{"f:managementState": map[string]any{}, "f:logLevel": map[string]any{}},
		},
	}
	specEditor = map[string]any{
		"manager": "kubectl-edit", "operation": "Update", "apiVersion": "operator.openshift.io/v1",
		"fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{
			"f:spec": map[string]any{
				"f:operatorLogLevel": map[string]any{},
				"f:nodePlacement":    map[string]any{".": map[string]any{}, "f:nodeSelector": map[string]any{".": map[string]any{}, "f:infra": map[string]any{}}},
			},
		},
	}
	statusOwner = map[string]any{
		"manager": "status-owner", "operation": "Apply", "apiVersion": "operator.openshift.io/v1",
		"fieldsType": "FieldsV1", "subresource": "status",
		"fieldsV1": map[string]any{
			"f:status": map[string]any{
				"f:observedGeneration": map[string]any{},
				"f:conditions": map[string]any{
					`k:{"type":"Available"}`: map[string]any{
						".": map[string]any{}, "f:type": map[string]any{}, "f:status": map[string]any{},
						"f:lastTransitionTime": map[string]any{}, "f:reason": map[string]any{}, "f:message": map[string]any{},
					},
				},
			},
		},
	}
	otherStatusOwner = map[string]any{
		"manager": "other-status-owner", "operation": "Apply", "apiVersion": "operator.openshift.io/v1",
		"fieldsType": "FieldsV1", "subresource": "status",
		"fieldsV1": map[string]any{
			"f:status": map[string]any{
				"f:conditions": map[string]any{
					`k:{"type":"Degraded"}`: map[string]any{
						".": map[string]any{}, "f:type": map[string]any{}, "f:status": map[string]any{},
						"f:lastTransitionTime": map[string]any{}, "f:reason": map[string]any{},
					},
				},
			},
		},
	}
)

func fullCR() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "operator.openshift.io/v1",
		"kind":       "LeaderWorkerSetOperator",
		"metadata": map[string]any{
			"name":          "cluster",
			"generation":    int64(3),
			"labels":        map[string]any{"team": "inference"},
			"managedFields": []any{specOwner, specEditor, statusOwner, otherStatusOwner},
		},
		"spec": map[string]any{
			"managementState":  "Managed",
			"logLevel":         "Debug",
			"operatorLogLevel": "Trace",
			"nodePlacement":    map[string]any{"nodeSelector": map[string]any{"infra": ""}},
		},
		"status": map[string]any{
			"observedGeneration": int64(3),
			"conditions": []any{
				map[string]any{"type": "Available", "status": "True", "lastTransitionTime": "2026-01-02T03:04:05Z", "reason": "AsExpected", "message": "ready"},
				map[string]any{"type": "Degraded", "status": "False", "lastTransitionTime": "2026-01-02T03:04:05Z", "reason": "AsExpected"},
			},
		},
	}}
}

var transitionTime = metav1.Date(2026, 1, 2, 3, 4, 5, 0, metav1.Now().UTC().Location())

func TestExtractOperatorSpec(t *testing.T) {
	tests := []struct {
		name    string
		obj     *unstructured.Unstructured
		manager string
		want    *applyoperatorv1.OperatorSpecApplyConfiguration
		wantErr bool
	}{
		{
			name:    "fields applied by the manager are extracted, fields of other managers are not",
			obj:     fullCR(),
			manager: "spec-owner",
			want: &applyoperatorv1.OperatorSpecApplyConfiguration{
				ManagementState: ptr.To(operatorv1.Managed),
				LogLevel:        ptr.To(operatorv1.Debug),
			},
		},
		{
			// Extraction reads what a manager applied (server-side apply), never what it updated.
			name:    "an Update manager's fields are not extracted",
			obj:     fullCR(),
			manager: "kubectl-edit",
		},
		{
			name:    "a manager that owns nothing gets nil",
			obj:     fullCR(),
			manager: "stranger",
		},
		{
			name:    "a status manager owns nothing in the spec",
			obj:     fullCR(),
			manager: "status-owner",
		},
		{
			name: "CR without spec, status or managedFields",
			obj: &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "operator.openshift.io/v1", "kind": "LeaderWorkerSetOperator",
				"metadata": map[string]any{"name": "cluster"},
			}},
			manager: "spec-owner",
		},
		{
			name: "managedFields naming a field the object no longer has",
			obj: func() *unstructured.Unstructured {
				obj := fullCR()
				delete(obj.Object["spec"].(map[string]any), "logLevel")
				return obj
			}(),
			manager: "spec-owner",
			want:    &applyoperatorv1.OperatorSpecApplyConfiguration{ManagementState: ptr.To(operatorv1.Managed)},
		},
		{
			name:    "nil object",
			obj:     nil,
			manager: "spec-owner",
			wantErr: true,
		},
		{
			name: "spec of the wrong type",
			obj: &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "operator.openshift.io/v1", "kind": "LeaderWorkerSetOperator",
				"metadata": map[string]any{"name": "cluster"}, "spec": "Managed",
			}},
			manager: "spec-owner",
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExtractOperatorSpec(tt.obj, tt.manager)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error: %v", err, tt.wantErr)
			}
			if !equality.Semantic.DeepEqual(got, tt.want) {
				t.Errorf("got %s\nwant %s", toJSON(t, got), toJSON(t, tt.want))
			}
		})
	}
}

func TestExtractOperatorStatus(t *testing.T) {
	tests := []struct {
		name    string
		obj     *unstructured.Unstructured
		manager string
		want    *applyoperatorv1.OperatorStatusApplyConfiguration
		wantErr bool
	}{
		{
			name:    "the manager's condition and observedGeneration, not another manager's condition",
			obj:     fullCR(),
			manager: "status-owner",
			want: &applyoperatorv1.OperatorStatusApplyConfiguration{
				ObservedGeneration: ptr.To[int64](3),
				Conditions: []applyoperatorv1.OperatorConditionApplyConfiguration{{
					Type: ptr.To("Available"), Status: ptr.To(operatorv1.ConditionTrue),
					LastTransitionTime: &transitionTime, Reason: ptr.To("AsExpected"), Message: ptr.To("ready"),
				}},
			},
		},
		{
			name:    "the other manager gets only its own condition",
			obj:     fullCR(),
			manager: "other-status-owner",
			want: &applyoperatorv1.OperatorStatusApplyConfiguration{
				Conditions: []applyoperatorv1.OperatorConditionApplyConfiguration{{
					Type: ptr.To("Degraded"), Status: ptr.To(operatorv1.ConditionFalse),
					LastTransitionTime: &transitionTime, Reason: ptr.To("AsExpected"),
				}},
			},
		},
		{
			name:    "a spec manager owns nothing in the status",
			obj:     fullCR(),
			manager: "spec-owner",
		},
		{
			name:    "no status at all",
			obj:     withoutField(fullCR(), "status"),
			manager: "status-owner",
		},
		{
			name: "empty status and no managedFields",
			obj: &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "operator.openshift.io/v1", "kind": "LeaderWorkerSetOperator",
				"metadata": map[string]any{"name": "cluster"},
				"spec":     map[string]any{"managementState": "Managed"},
				"status":   map[string]any{},
			}},
			manager: "status-owner",
		},
		{
			name:    "nil object",
			obj:     nil,
			manager: "status-owner",
			wantErr: true,
		},
		{
			name: "conditions of the wrong type",
			obj: &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "operator.openshift.io/v1", "kind": "LeaderWorkerSetOperator",
				"metadata": map[string]any{"name": "cluster"},
				"status":   map[string]any{"conditions": "Available"},
			}},
			manager: "status-owner",
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExtractOperatorStatus(tt.obj, tt.manager)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error: %v", err, tt.wantErr)
			}
			if !equality.Semantic.DeepEqual(got, tt.want) {
				t.Errorf("got %s\nwant %s", toJSON(t, got), toJSON(t, tt.want))
			}
		})
	}
}

func TestGVRAndGVK(t *testing.T) {
	if got, want := GVR.String(), "operator.openshift.io/v1, Resource=leaderworkersetoperators"; got != want {
		t.Errorf("GVR = %q, want %q", got, want)
	}
	if got, want := GVK.String(), "operator.openshift.io/v1, Kind=LeaderWorkerSetOperator"; got != want {
		t.Errorf("GVK = %q, want %q", got, want)
	}
}

func withoutField(obj *unstructured.Unstructured, field string) *unstructured.Unstructured {
	delete(obj.Object, field)
	return obj
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(b)
}
