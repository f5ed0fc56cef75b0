// Command oidcissuer is a minimal OpenID Connect issuer for the local cluster: discovery
// (/.well-known/openid-configuration), its signing key (/jwks, RS256, a new key per start) and a
// token endpoint (/token, client_credentials with the one client it knows) that returns a signed
// ID token for that client. Enough for a relying party such as go-oidc (the inference
// gateway's AUTH_OIDC_*) to verify tokens; nothing else of OIDC is there.
package main

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"flag"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/llm-infra/llm-infra-operator/hack/tools/services/internal/serve"
)

const keyID = "local"

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func sign(key *rsa.PrivateKey, claims map[string]any) (string, error) {
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": keyID})
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := b64(header) + "." + b64(payload)
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		return "", err
	}
	return input + "." + b64(sig), nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func main() {
	addr := flag.String("addr", "127.0.0.1:5556", "listen address (loopback)")
	issuer := flag.String("issuer", "", "the issuer URL (default http://<addr>)")
	clientID := flag.String("client-id", "inference-gateway-client", "the one client")
	clientSecret := flag.String("client-secret", "", "its secret (read from $OIDC_CLIENT_SECRET when empty)")
	ttl := flag.Duration("token-ttl", time.Hour, "lifetime of the tokens")
	flag.Parse()
	if *clientSecret == "" {
		*clientSecret = os.Getenv("OIDC_CLIENT_SECRET")
	}
	if *clientSecret == "" {
		log.Fatal("oidcissuer: a client secret is required (-client-secret or $OIDC_CLIENT_SECRET)")
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("oidcissuer: %v", err)
	}
	if *issuer == "" {
		*issuer = "http://" + ln.Addr().String()
	}
	iss := strings.TrimSuffix(*issuer, "/")

	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                                iss,
			"jwks_uri":                              iss + "/jwks",
			"token_endpoint":                        iss + "/token",
			"authorization_endpoint":                iss + "/authorize",
			"response_types_supported":              []string{"id_token"},
			"subject_types_supported":               []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
			"grant_types_supported":                 []string{"client_credentials"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"keys": []map[string]string{{
			"kty": "RSA", "use": "sig", "alg": "RS256", "kid": keyID,
			"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes()),
		}}})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
		}
		if r.PostFormValue("grant_type") != "client_credentials" {
			http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
			return
		}
		if id != *clientID || subtle.ConstantTimeCompare([]byte(secret), []byte(*clientSecret)) != 1 {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		now := time.Now()
		token, err := sign(key, map[string]any{
			"iss": iss, "sub": id, "aud": id, "azp": id,
			"iat": now.Unix(), "exp": now.Add(*ttl).Unix(),
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, map[string]any{
			"access_token": token, "id_token": token, "token_type": "Bearer", "expires_in": int(ttl.Seconds()),
		})
	})
	log.Printf("oidcissuer: issuer %s, client %s", iss, *clientID)
	serve.Until("oidcissuer", ln, mux)
}
