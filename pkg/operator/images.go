package operator

import (
	"fmt"
	"os"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/batchgateway"
)

// OperandImageEnv names the environment variable that carries the LeaderWorkerSet controller's
// image. OLM fills RELATED_IMAGE_* variables from the bundle's relatedImages, so disconnected
// mirrors work without the operator knowing about them.
const OperandImageEnv = "RELATED_IMAGE_OPERAND_IMAGE"

// Images are the operand images the operator deploys.
type Images struct {
	// LWS is the LeaderWorkerSet controller's image.
	LWS string
	// BatchGateway are the LLM batch gateway's component images. Each may be missing: the
	// LLMBatchGateways that need a missing one say so in their conditions.
	BatchGateway batchgateway.Images
}

// ImagesFromEnv reads the operand images from the environment and fails when one is missing:
// running an operand with a guessed image would be a surprise for the administrator.
func ImagesFromEnv() (Images, error) {
	image := os.Getenv(OperandImageEnv)
	if image == "" {
		return Images{}, fmt.Errorf("%s is not set: set it to the LeaderWorkerSet controller image (for example registry.k8s.io/lws/lws:v0.8.0)", OperandImageEnv)
	}
	return Images{LWS: image, BatchGateway: batchgateway.ImagesFromEnv(os.Getenv)}, nil
}
