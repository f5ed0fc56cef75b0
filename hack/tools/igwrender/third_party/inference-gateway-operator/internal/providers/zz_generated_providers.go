/*
Copyright 2026 Inference Gateway

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Code generated from inference-gateway/schemas openapi.yaml; DO NOT EDIT.
// Source: components.schemas.Provider.enum
// Regenerate with: task verify-shared-types

package providers

// SupportedProviders is the set of provider identifiers defined by the canonical
// Inference Gateway schema. It is the single source of truth shared with the
// gateway, which generates the same list from the same schema. Do not edit by
// hand; see the package documentation in providers.go.
var SupportedProviders = []string{
	"anthropic",
	"cloudflare",
	"cohere",
	"deepseek",
	"google",
	"groq",
	"llamacpp",
	"minimax",
	"mistral",
	"moonshot",
	"nvidia",
	"ollama",
	"ollama_cloud",
	"openai",
	"zai",
}
