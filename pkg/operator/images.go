package operator

import (
	"fmt"
	"os"
	"sort"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// Images are the images the operator deploys, from the RELATED_IMAGE_* variables the
// registered kinds declare. OLM fills them from the bundle's relatedImages, so disconnected
// mirrors work without the operator knowing about them.
type Images struct {
	values  map[string]string
	missing []string
}

// ImagesFromEnv reads every registered image from the environment and fails when a required
// one is missing: running an operand with a guessed image would be a surprise for the
// administrator. A missing optional one is reported by the CRs that need it.
func ImagesFromEnv(all []registry.Registration) (Images, error) {
	images := Images{values: map[string]string{}}
	for _, r := range all {
		for _, image := range r.Images {
			value := os.Getenv(image.Env)
			if value == "" && image.Required {
				return Images{}, fmt.Errorf("%s is not set: set it to the image of %s", image.Env, image.Component)
			}
			if value == "" {
				images.missing = append(images.missing, image.Env)
			}
			images.values[image.Env] = value
		}
	}
	return images, nil
}

// Of is the image of an environment variable ("" when it is not set).
func (i Images) Of(env string) string { return i.values[env] }

// MissingOptional lists the optional images that are not set.
func (i Images) MissingOptional() []string { return i.missing }

// Set lists the images that are set, as ENV=image.
func (i Images) Set() []string {
	var out []string
	for env, value := range i.values {
		if value != "" {
			out = append(out, env+"="+value)
		}
	}
	sort.Strings(out)
	return out
}
