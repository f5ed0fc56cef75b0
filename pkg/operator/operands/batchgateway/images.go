package batchgateway

import (
	"fmt"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
)

// Images are the operand's container images. They are not part of the CR: the platform that
// installs the operator chooses them (upstream reads LLM_D_BATCH_GATEWAY_APISERVER_IMAGE,
// ..._PROCESSOR_IMAGE, ..._GC_IMAGE and LLM_D_ASYNC_IMAGE). They are used verbatim: upstream
// splits a reference at its last colon and joins it again, which only differs for a reference
// without a tag, where it appends ":latest".
type Images struct {
	APIServer      string
	Processor      string
	GC             string
	AsyncProcessor string
}

// imageFor is the image of a component's container.
func (i Images) imageFor(component string) string {
	switch component {
	case componentAPIServer:
		return i.APIServer
	case componentProcessor:
		return i.Processor
	case componentGC:
		return i.GC
	case componentAsyncProcessor:
		return i.AsyncProcessor
	}
	return ""
}

// requireImage fails when a component that is to run has no image: its Deployment would be
// rejected, and the cause would be far from the message.
func (i Images) requireImage(component string) error {
	if i.imageFor(component) == "" {
		return fmt.Errorf("no container image configured for the %s", component)
	}
	return nil
}

// Environment variables of the operator that hold the images (the CSV's relatedImages).
const (
	APIServerImageEnv      = "RELATED_IMAGE_BATCH_GATEWAY_APISERVER"
	ProcessorImageEnv      = "RELATED_IMAGE_BATCH_GATEWAY_PROCESSOR"
	GCImageEnv             = "RELATED_IMAGE_BATCH_GATEWAY_GC"
	AsyncProcessorImageEnv = "RELATED_IMAGE_BATCH_GATEWAY_ASYNC_PROCESSOR"
)

// ImagesFromEnv reads the images from the operator's environment. A missing one is not an
// error here: each CR that needs it reports it in its conditions.
func ImagesFromEnv(getenv func(string) string) Images {
	return Images{
		APIServer:      getenv(APIServerImageEnv),
		Processor:      getenv(ProcessorImageEnv),
		GC:             getenv(GCImageEnv),
		AsyncProcessor: getenv(AsyncProcessorImageEnv),
	}
}

// missingImage is a component that runs without an image.
type missingImage struct {
	component, env string
}

type missingImages []missingImage

func (m missingImages) components() []string {
	out := make([]string, len(m))
	for i, x := range m {
		out[i] = x.component
	}
	return out
}

func (m missingImages) envVars() []string {
	out := make([]string, len(m))
	for i, x := range m {
		out[i] = x.env
	}
	return out
}

// missingEnv lists the components the spec runs that have no image.
func (i Images) missingEnv(spec *batchv1alpha1.LLMBatchGatewaySpec) missingImages {
	wanted := []missingImage{
		{componentAPIServer, APIServerImageEnv},
		{componentProcessor, ProcessorImageEnv},
		{componentGC, GCImageEnv},
	}
	if asyncEnabled(spec) {
		wanted = append(wanted, missingImage{componentAsyncProcessor, AsyncProcessorImageEnv})
	}
	var missing missingImages
	for _, w := range wanted {
		if i.imageFor(w.component) == "" {
			missing = append(missing, w)
		}
	}
	return missing
}

// MissingEnvVars lists the environment variables of images that are not set.
func (i Images) MissingEnvVars() []string {
	var out []string
	for _, c := range []struct{ image, env string }{
		{i.APIServer, APIServerImageEnv}, {i.Processor, ProcessorImageEnv}, {i.GC, GCImageEnv}, {i.AsyncProcessor, AsyncProcessorImageEnv},
	} {
		if c.image == "" {
			out = append(out, c.env)
		}
	}
	return out
}
