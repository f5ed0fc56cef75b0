// Command upstream-render is the only file of this tree that upstream does not have (see
// hack/tools/upstreamrender/README.md): it runs upstream's own render of an LLMBatchGateway, the
// steps of LLMBatchGatewayReconciler.Reconcile between resolving the credentials Secret and
// applying (RenderBatchChart, RenderAsyncChart for async dispatch with asyncConfig, then
// SetNamespace and SetControllerReference on every object), without a cluster.
//
// It reads a stream of JSON LLMBatchGateways (CRD defaults already applied, as the API server
// would) on standard input and writes one JSON line per CR: {"objects": [...]} or
// {"error": "..."}. spec.secretRef is taken as a Secret of the CR's namespace (the name the
// reconciler's resolveSecret returns for one).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	batchv1alpha1 "github.com/opendatahub-io/llm-d-batch-gateway-operator/api/v1alpha1"
	"github.com/opendatahub-io/llm-d-batch-gateway-operator/internal/controller"
)

type result struct {
	Objects []map[string]interface{} `json:"objects,omitempty"`
	Error   string                   `json:"error,omitempty"`
}

func main() {
	batchChart := flag.String("batch-chart", "", "charts/batch-gateway of the pinned batch-gateway commit")
	asyncChart := flag.String("async-chart", "", "charts/async-processor of the pinned llm-d-async commit")
	var images controller.ComponentImages
	flag.StringVar(&images.APIServer, "apiserver-image", "registry.example/batch-gateway-apiserver:v0", "LLM_D_BATCH_GATEWAY_APISERVER_IMAGE")
	flag.StringVar(&images.Processor, "processor-image", "registry.example/batch-gateway-processor:v0", "LLM_D_BATCH_GATEWAY_PROCESSOR_IMAGE")
	flag.StringVar(&images.GC, "gc-image", "registry.example/batch-gateway-gc:v0", "LLM_D_BATCH_GATEWAY_GC_IMAGE")
	flag.StringVar(&images.Async, "async-image", "registry.example/llm-d-async:v0", "LLM_D_ASYNC_IMAGE")
	flag.Parse()
	if err := run(*batchChart, *asyncChart, images, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "upstream-render:", err)
		os.Exit(1)
	}
}

func run(batchChart, asyncChart string, images controller.ComponentImages, in io.Reader, out io.Writer) error {
	batch, err := controller.NewHelmRenderer(batchChart, images)
	if err != nil {
		return err
	}
	async, err := controller.NewHelmRenderer(asyncChart, images)
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := batchv1alpha1.AddToScheme(scheme); err != nil {
		return err
	}
	decoder := json.NewDecoder(bufio.NewReader(in))
	w := bufio.NewWriter(out)
	encoder := json.NewEncoder(w)
	for {
		gw := &batchv1alpha1.LLMBatchGateway{}
		if err := decoder.Decode(gw); err == io.EOF {
			return w.Flush()
		} else if err != nil {
			return err
		}
		objects, err := render(batch, async, scheme, gw)
		var res result
		if err != nil {
			res.Error = err.Error()
		}
		for _, obj := range objects {
			res.Objects = append(res.Objects, obj.Object)
		}
		if err := encoder.Encode(res); err != nil {
			return err
		}
		// One line per CR, at once: the caller reads it before it sends the next.
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

// render is the reconciler's render and post-processing, in its order.
func render(batch, async *controller.HelmRenderer, scheme *runtime.Scheme, gw *batchv1alpha1.LLMBatchGateway) ([]*unstructured.Unstructured, error) {
	secretName := gw.Spec.SecretRef.Name
	objects, err := batch.RenderBatchChart(gw, secretName)
	if err != nil {
		return nil, fmt.Errorf("rendering batch-gateway chart: %w", err)
	}
	if gw.Spec.Processor.DispatchMode == "async" && gw.Spec.Processor.AsyncConfig != nil {
		asyncObjects, err := async.RenderAsyncChart(gw, secretName)
		if err != nil {
			return nil, fmt.Errorf("rendering async chart: %w", err)
		}
		objects = append(objects, asyncObjects...)
	}
	for _, obj := range objects {
		obj.SetNamespace(gw.Namespace)
		if err := controllerutil.SetControllerReference(gw, obj, scheme); err != nil {
			return nil, fmt.Errorf("setting owner reference on %s/%s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return objects, nil
}
