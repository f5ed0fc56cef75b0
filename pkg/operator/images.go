package operator

import (
	"fmt"
	"os"
)

// OperandImageEnv names the environment variable that carries the LeaderWorkerSet controller's
// image. OLM fills RELATED_IMAGE_* variables from the bundle's relatedImages, so disconnected
// mirrors work without the operator knowing about them.
const OperandImageEnv = "RELATED_IMAGE_OPERAND_IMAGE"

// Images are the operand images the operator deploys.
type Images struct {
	// LWS is the LeaderWorkerSet controller's image.
	LWS string
}

// ImagesFromEnv reads the operand images from the environment and fails when one is missing:
// running an operand with a guessed image would be a surprise for the administrator.
func ImagesFromEnv() (Images, error) {
	image := os.Getenv(OperandImageEnv)
	if image == "" {
		return Images{}, fmt.Errorf("%s is not set: set it to the LeaderWorkerSet controller image (for example registry.k8s.io/lws/lws:v0.8.0)", OperandImageEnv)
	}
	return Images{LWS: image}, nil
}
