package live

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
)

// TestAllowAdmission: a review is answered allowed with its request's UID and no patch;
// anything else is a 400.
func TestAllowAdmission(t *testing.T) {
	for _, tc := range []struct {
		name     string
		body     string
		wantCode int
	}{
		{"a review", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1"}}`, http.StatusOK},
		{"a review without a request", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, http.StatusBadRequest},
		{"not JSON", `not json`, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			AllowAdmission(rec, httptest.NewRequest(http.MethodPost, "/validate", strings.NewReader(tc.body)))
			if rec.Code != tc.wantCode {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.wantCode, rec.Body)
			}
			if tc.wantCode != http.StatusOK {
				return
			}
			var review admissionv1.AdmissionReview
			if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil {
				t.Fatal(err)
			}
			if r := review.Response; r == nil || !r.Allowed || r.UID != "u-1" || r.Patch != nil || review.Request != nil {
				t.Errorf("response %+v, request %+v", review.Response, review.Request)
			}
		})
	}
}
