package batchgateway

import "fmt"

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
