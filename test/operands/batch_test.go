package operands

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const batchCR = "batch-gateway-sync"

// batchClient talks to an LLMBatchGateway's apiserver (the OpenAI Files and Batches API).
type batchClient struct{ url string }

type batchStatus struct {
	ID            string `json:"id"`
	Status        string `json:"status"`
	OutputFileID  string `json:"output_file_id"`
	ErrorFileID   string `json:"error_file_id"`
	RequestCounts struct {
		Total     int `json:"total"`
		Completed int `json:"completed"`
		Failed    int `json:"failed"`
	} `json:"request_counts"`
	// Errors says why a batch failed before its requests ran (OpenAI's batch object).
	Errors *struct {
		Data []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Line    *int   `json:"line"`
		} `json:"data"`
	} `json:"errors"`
}

// input is a JSONL batch of n chat completions for the simulator's model, each with its own text.
func batchInput(n int, tag string) ([]byte, []string) {
	var buf bytes.Buffer
	var texts []string
	for i := range n {
		text := fmt.Sprintf("%s request %d", tag, i)
		texts = append(texts, text)
		line, _ := json.Marshal(map[string]any{
			"custom_id": fmt.Sprintf("%s-%d", tag, i), "method": "POST", "url": "/v1/chat/completions",
			"body": map[string]any{"model": "sim-model", "max_tokens": 32, "messages": []map[string]string{{"role": "user", "content": text}}},
		})
		buf.Write(append(line, '\n'))
	}
	return buf.Bytes(), texts
}

func (c batchClient) upload(ctx context.Context, data []byte) (string, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("purpose", "batch")
	part, _ := w.CreateFormFile("file", "input.jsonl")
	_, _ = part.Write(data)
	_ = w.Close()
	code, resp, err := do(ctx, http.MethodPost, c.url+"/v1/files", http.Header{"Content-Type": {w.FormDataContentType()}}, &body)
	if err != nil {
		return "", err
	}
	if code != http.StatusOK && code != http.StatusCreated {
		return "", fmt.Errorf("upload: %d %s", code, resp)
	}
	var f struct{ ID string }
	return f.ID, json.Unmarshal(resp, &f)
}

func (c batchClient) create(ctx context.Context, fileID string) (batchStatus, error) {
	req, _ := json.Marshal(map[string]string{"input_file_id": fileID, "endpoint": "/v1/chat/completions", "completion_window": "24h"})
	code, resp, err := do(ctx, http.MethodPost, c.url+"/v1/batches", jsonHeader(), bytes.NewReader(req))
	var b batchStatus
	if err != nil {
		return b, err
	}
	if code != http.StatusOK && code != http.StatusCreated {
		return b, fmt.Errorf("create batch: %d %s", code, resp)
	}
	return b, json.Unmarshal(resp, &b)
}

func (c batchClient) get(ctx context.Context, id string) (batchStatus, error) {
	code, resp, err := do(ctx, http.MethodGet, c.url+"/v1/batches/"+id, nil, nil)
	var b batchStatus
	if err != nil {
		return b, err
	}
	if code != http.StatusOK {
		return b, fmt.Errorf("get batch: %d %s", code, resp)
	}
	return b, json.Unmarshal(resp, &b)
}

func (c batchClient) content(ctx context.Context, fileID string) ([]byte, error) {
	code, resp, err := do(ctx, http.MethodGet, c.url+"/v1/files/"+fileID+"/content", nil, nil)
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("download: %d %s", code, resp)
	}
	return resp, err
}

// runBatch uploads n requests, creates a batch, waits until it completes and checks every
// response: status 200, and the simulator's echo of the request's own text.
func runBatch(ctx context.Context, c batchClient, n int, tag string) batchStatus {
	input, texts := batchInput(n, tag)
	By(fmt.Sprintf("uploading %d requests and creating a batch through %s", n, c.url))
	var fileID string
	// The apiserver answers once its pod is ready; the first upload may still meet a process that
	// is connecting to PostgreSQL.
	Eventually(func() error {
		var err error
		fileID, err = c.upload(ctx, input)
		return err
	}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(poll).Should(Succeed())
	b, err := c.create(ctx, fileID)
	Expect(err).NotTo(HaveOccurred())
	By("waiting for batch " + b.ID + " to complete")
	Eventually(func(g Gomega) {
		b, err = c.get(ctx, b.ID)
		g.Expect(err).NotTo(HaveOccurred())
		// A batch that ended otherwise never completes: say so now, with its errors, rather
		// than at the timeout.
		if terminal := []string{"failed", "expired", "cancelled"}; slices.Contains(terminal, b.Status) {
			errs, _ := json.Marshal(b.Errors)
			StopTrying(fmt.Sprintf("batch %s ended %s (%d of %d requests failed): errors %s",
				b.ID, b.Status, b.RequestCounts.Failed, b.RequestCounts.Total, errs)).Now()
		}
		g.Expect(b.Status).To(Equal("completed"), "batch %s: %d of %d requests done",
			b.ID, b.RequestCounts.Completed+b.RequestCounts.Failed, b.RequestCounts.Total)
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
	Expect(b.RequestCounts.Total).To(Equal(n))
	Expect(b.RequestCounts.Completed).To(Equal(n), "failed: %d", b.RequestCounts.Failed)
	out, err := c.content(ctx, b.OutputFileID)
	Expect(err).NotTo(HaveOccurred())
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	Expect(lines).To(HaveLen(n))
	var got []string
	for _, l := range lines {
		var r struct {
			CustomID string `json:"custom_id"`
			Response struct {
				StatusCode int `json:"status_code"`
				Body       struct {
					Choices []struct {
						Message struct{ Content string }
					}
				}
			}
		}
		Expect(json.Unmarshal([]byte(l), &r)).To(Succeed(), l)
		Expect(r.Response.StatusCode).To(Equal(http.StatusOK), l)
		Expect(r.Response.Body.Choices).NotTo(BeEmpty(), l)
		got = append(got, r.Response.Body.Choices[0].Message.Content)
	}
	sort.Strings(got)
	sort.Strings(texts)
	// The simulator in echo mode answers with the request's text, cut at max_tokens.
	for i := range texts {
		Expect(texts[i]).To(HavePrefix(strings.TrimSpace(got[i])), "response %q for request %q", got[i], texts[i])
	}
	GinkgoWriter.Printf("batch %s completed: %d of %d requests\n", b.ID, b.RequestCounts.Completed, n)
	return b
}

// deployBatchSample applies the run-local batch sample into ns, with patch applied to the CR.
func deployBatchSample(ctx context.Context, ns string, patch func(*unstructured.Unstructured)) (*unstructured.Unstructured, batchClient) {
	objs, cr := batchSample(ns)
	if patch != nil {
		patch(cr)
	}
	return deployBatch(ctx, ns, objs, cr)
}

// deployAsyncBatch is deployBatchSample with the processor in async mode: the batch's requests go
// through Redis to the async processor, which sends them to the simulator; patch is applied after.
// Returns once the async processor is ready too.
func deployAsyncBatch(ctx context.Context, ns string, patch func(*unstructured.Unstructured)) (*unstructured.Unstructured, batchClient) {
	sim := fmt.Sprintf("http://vllm-sim.%s.svc.cluster.local:8000", ns)
	cr, c := deployBatchSample(ctx, ns, func(cr *unstructured.Unstructured) {
		proc := map[string]any{
			"replicas":      int64(1),
			"dispatchMode":  "async",
			"modelGateways": map[string]any{"sim-model": map[string]any{"inferencePoolName": "sim-pool"}},
			"asyncConfig": map[string]any{
				"replicas":         int64(1),
				"inferenceGateway": map[string]any{"url": sim},
				"redis":            map[string]any{"requestPathURL": "/v1/chat/completions"},
			},
		}
		Expect(unstructured.SetNestedField(cr.Object, proc, "spec", "processor")).To(Succeed())
		if patch != nil {
			patch(cr)
		}
	})
	waitDeploymentReady(ctx, ns, batchCR+"-async-processor")
	return cr, c
}

// batchSample is the run-local batch sample's objects for ns, and its LLMBatchGateway among them.
func batchSample(ns string) ([]*unstructured.Unstructured, *unstructured.Unstructured) {
	objs, err := render("batch-gateway.yaml", map[string]string{"NAMESPACE": ns})
	Expect(err).NotTo(HaveOccurred())
	return objs, byKind(objs, "LLMBatchGateway", batchCR)
}

// deployBatch applies objs (cr one of them) into ns and waits for the simulator and the CR.
func deployBatch(ctx context.Context, ns string, objs []*unstructured.Unstructured, cr *unstructured.Unstructured) (*unstructured.Unstructured, batchClient) {
	apply(ctx, ns, objs...)
	waitDeploymentReady(ctx, ns, "vllm-sim")
	waitCondition(ctx, cr, ns, "Ready")
	return cr, batchClient{url: serviceURL(ctx, ns, batchCR+"-apiserver", 8000, "http")}
}

// s3Keys lists the keys of the services' bucket (gofakes3 answers ListObjectsV2 unsigned), page
// by page: a page holds at most 1000 keys, and the bucket outlives a cluster (the services' data
// stays in the cluster's folder), so the load of serving under faults soon fills more than one.
func s3Keys(ctx context.Context) []string {
	var keys []string
	token := ""
	for {
		query := url.Values{"list-type": {"2"}}
		if token != "" {
			query.Set("continuation-token", token)
		}
		code, body, err := do(ctx, http.MethodGet, fw.services["S3_HOST_ENDPOINT"]+"/"+fw.services["S3_BUCKET"]+"?"+query.Encode(), nil, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(http.StatusOK), string(body))
		var page struct {
			Contents []struct {
				Key string `xml:"Key"`
			} `xml:"Contents"`
			IsTruncated           bool   `xml:"IsTruncated"`
			NextContinuationToken string `xml:"NextContinuationToken"`
		}
		Expect(xml.Unmarshal(body, &page)).To(Succeed(), string(body))
		for _, c := range page.Contents {
			keys = append(keys, c.Key)
		}
		if !page.IsTruncated {
			return keys
		}
		Expect(page.NextContinuationToken).NotTo(BeEmpty(), "a truncated page without a continuation token")
		token = page.NextContinuationToken
	}
}

var _ = Describe("LLM batch gateway on real pods", Ordered, func() {
	It("completes a batch in sync mode with S3 storage", Label("short"), func(ctx SpecContext) {
		ns := namespace(ctx, "operands-batch-s3")
		before := len(s3Keys(ctx))
		_, c := deployBatchSample(ctx, ns, nil)
		b := runBatch(ctx, c, 3, "s3")
		// The input and the output are objects of the bucket.
		Expect(len(s3Keys(ctx))).To(BeNumerically(">=", before+2), "batch %s left no objects in S3", b.ID)
		// Issue 33: the apiserver, processor and gc completed it with read-only roots, the
		// processor writing its work directory (an emptyDir).
		writable := expectWritableOnlyAtVolumes(ctx, ns)
		Expect(writable).To(HaveKeyWithValue(HavePrefix(batchCR+"-processor-"), ContainElement("/var/lib/batch-gateway/processor")))
	})

	It("serves every metric and label its dashboards query (apiserver, processor with AIMD, gc)", func(ctx SpecContext) {
		ns := namespace(ctx, "operands-batch-metrics")
		_, c := deployBatchSample(ctx, ns, func(cr *unstructured.Unstructured) {
			Expect(unstructured.SetNestedField(cr.Object, true, "spec", "grafana", "enabled")).To(Succeed())
		})
		runBatch(ctx, c, 3, "metrics")
		expectDashboardsExported(ctx, ns, []string{batchCR + "-batch-gateway-dashboards"}, map[string]string{
			"apiserver": serviceURL(ctx, ns, batchCR+"-apiserver", 8081, "http") + "/metrics",
			"processor": metricsService(ctx, ns, "processor", 9090),
			"gc":        metricsService(ctx, ns, "gc", 9091),
		})
	})

	It("completes a batch in sync mode with filesystem storage on a root-owned volume", func(ctx SpecContext) {
		ns := namespace(ctx, "operands-batch-fs")
		// A volume whose root directory belongs to root, mode 0755, as block storage is formatted:
		// the pods (user 65532) can write only if the operator gives them an fsGroup.
		dir, err := os.MkdirTemp("", "operands-fs-volume-")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(os.RemoveAll, dir)
		Expect(os.Chmod(dir, 0o755)).To(Succeed())
		Expect(os.Chown(dir, 0, 0)).To(Succeed())
		pvName := ns + "-files"
		pv := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "PersistentVolume", "metadata": map[string]any{"name": pvName},
			"spec": map[string]any{
				"capacity":                      map[string]any{"storage": "1Gi"},
				"accessModes":                   []any{"ReadWriteOnce"},
				"persistentVolumeReclaimPolicy": "Retain",
				"storageClassName":              "",
				"hostPath":                      map[string]any{"path": dir, "type": "Directory"},
				"claimRef":                      map[string]any{"namespace": ns, "name": "batch-files"},
			},
		}}
		pvc := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": map[string]any{"name": "batch-files"},
			"spec": map[string]any{
				"accessModes":      []any{"ReadWriteOnce"},
				"storageClassName": "",
				"volumeName":       pvName,
				"resources":        map[string]any{"requests": map[string]any{"storage": "1Gi"}},
			},
		}}
		apply(ctx, ns, pv, pvc)
		DeferCleanup(func(ctx SpecContext) {
			_ = fw.kube.CoreV1().PersistentVolumes().Delete(ctx, pvName, metav1.DeleteOptions{})
		})
		_, c := deployBatchSample(ctx, ns, func(cr *unstructured.Unstructured) {
			Expect(unstructured.SetNestedField(cr.Object, map[string]any{"fs": map[string]any{"claimName": "batch-files"}}, "spec", "fileStorage")).To(Succeed())
		})
		runBatch(ctx, c, 3, "fs")
		// The files are on the volume, written by the pods' user.
		var files []string
		Expect(filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				files = append(files, p)
			}
			return err
		})).To(Succeed())
		Expect(len(files)).To(BeNumerically(">=", 2), "files on the volume: %v", files)
	})

	It("completes a batch in async mode through the async processor", func(ctx SpecContext) {
		ns := namespace(ctx, "operands-batch-async")
		_, c := deployAsyncBatch(ctx, ns, func(cr *unstructured.Unstructured) {
			Expect(unstructured.SetNestedField(cr.Object, true, "spec", "grafana", "enabled")).To(Succeed())
		})
		runBatch(ctx, c, 3, "async")
		// Defect 5: llm-d-async v0.7.3 exits without a service-account token (it builds an
		// in-cluster client for its metrics server whatever the metrics auth says). Its process
		// stayed up through the batch: Ready, never restarted.
		pods, err := fw.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=async-processor"})
		Expect(err).NotTo(HaveOccurred())
		Expect(pods.Items).NotTo(BeEmpty())
		for _, pod := range pods.Items {
			Expect(pod.Status.ContainerStatuses).NotTo(BeEmpty())
			for _, cs := range pod.Status.ContainerStatuses {
				Expect(cs.Ready).To(BeTrue(), "async processor %s/%s not ready: %+v", pod.Name, cs.Name, cs.State)
				Expect(cs.RestartCount).To(BeZero(), "async processor %s/%s restarted: %+v", pod.Name, cs.Name, cs.LastTerminationState)
			}
		}
		// Defect 6, the async processor's dashboard against its real /metrics.
		expectDashboardsExported(ctx, ns, []string{batchCR + "-async-processor-dashboards"}, map[string]string{
			"async processor": metricsService(ctx, ns, "async-processor", 9090),
		})
	})

	It("rolls the pods onto rotated credentials, and stops them when the CR goes", func(ctx SpecContext) {
		ns := namespace(ctx, "operands-batch-rotation")
		cr, c := deployBatchSample(ctx, ns, nil)
		runBatch(ctx, c, 1, "before-rotation")
		apiserver := batchCR + "-apiserver"
		podsBefore := podUIDs(ctx, ns, "app.kubernetes.io/component=apiserver")

		By("rotating the PostgreSQL password: the role's own ALTER ROLE, then the Secret")
		newPassword := fmt.Sprintf("rotated%d", time.Now().UnixNano())
		withPassword := func(url, pw string) string {
			return regexp.MustCompile(`://batch:[^@]*@`).ReplaceAllString(url, "://batch:"+pw+"@")
		}
		hostURL := fw.services["POSTGRESQL_HOST_URL"]
		oldPassword := regexp.MustCompile(`://batch:([^@]*)@`).FindStringSubmatch(hostURL)[1]
		psql(ctx, hostURL, fmt.Sprintf("ALTER ROLE batch PASSWORD '%s'", newPassword))
		DeferCleanup(func(ctx SpecContext) {
			// Put the services' password back for the specs after this one.
			psql(ctx, withPassword(hostURL, newPassword), fmt.Sprintf("ALTER ROLE batch PASSWORD '%s'", oldPassword))
		})
		newURL := withPassword(fw.services["POSTGRESQL_URL"], newPassword)
		secret, err := fw.kube.CoreV1().Secrets(ns).Get(ctx, "batch-gateway-secrets", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		secret.Data["postgresql-url"] = []byte(newURL)
		_, err = fw.kube.CoreV1().Secrets(ns).Update(ctx, secret, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())

		By("waiting for the apiserver's pods to be replaced")
		Eventually(func(g Gomega) {
			now := podUIDs(ctx, ns, "app.kubernetes.io/component=apiserver")
			g.Expect(now).NotTo(BeEmpty())
			for uid := range now {
				g.Expect(podsBefore).NotTo(HaveKey(uid))
			}
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
		waitDeploymentReady(ctx, ns, apiserver)
		// Only the new password opens the database now: a batch completing proves the new
		// processes use it.
		runBatch(ctx, c, 1, "after-rotation")

		By("deleting the LLMBatchGateway: its pods, and so its processes, go")
		Expect(resource(cr, ns).Delete(ctx, cr.GetName(), metav1.DeleteOptions{})).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(podUIDs(ctx, ns, "app.kubernetes.io/part-of=llm-batch-gateway")).To(BeEmpty())
			_, _, err := do(ctx, http.MethodGet, c.url+"/v1/batches", nil, nil)
			g.Expect(err).To(HaveOccurred(), "the apiserver still answers on %s", c.url)
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
	})
})

func podUIDs(ctx context.Context, ns, selector string) map[string]bool {
	pods, err := fw.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	Expect(err).NotTo(HaveOccurred())
	out := map[string]bool{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded {
			out[string(p.UID)] = true
		}
	}
	return out
}

// psql runs one statement as the batch role over TCP (psql, PostgreSQL's client).
func psql(ctx context.Context, url, stmt string) {
	out, err := exec.CommandContext(ctx, "psql", url, "-v", "ON_ERROR_STOP=1", "-qc", stmt).CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "psql: %s", out)
}
