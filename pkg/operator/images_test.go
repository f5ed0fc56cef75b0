package operator

import (
	"testing"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

func TestImagesFromEnv(t *testing.T) {
	var required []registry.Image
	for _, r := range operands.All() {
		for _, image := range r.Images {
			if image.Required {
				required = append(required, image)
			}
		}
	}
	if len(required) == 0 {
		t.Fatal("no registered kind requires an image; the LeaderWorkerSet controller's is")
	}
	for _, image := range required {
		t.Run(image.Env+" unset refuses to start", func(t *testing.T) {
			for _, other := range required {
				t.Setenv(other.Env, "registry.example.com/x:v1")
			}
			t.Setenv(image.Env, "")
			if _, err := ImagesFromEnv(operands.All()); err == nil {
				t.Errorf("started without %s", image.Env)
			}
		})
	}
	t.Run("set", func(t *testing.T) {
		for _, image := range required {
			t.Setenv(image.Env, "registry.example.com/"+image.Env+":v1")
		}
		images, err := ImagesFromEnv(operands.All())
		if err != nil {
			t.Fatal(err)
		}
		for _, image := range required {
			if got := images.Of(image.Env); got != "registry.example.com/"+image.Env+":v1" {
				t.Errorf("%s = %q", image.Env, got)
			}
		}
	})
}
