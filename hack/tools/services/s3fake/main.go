// Command s3fake serves an S3 API on one address with gofakes3, keeping the buckets in a bolt
// file, for the batch gateway's file storage on the local cluster. Requests are not
// authenticated (any access key is accepted); it listens on loopback only.
package main

import (
	"flag"
	"log"
	"net"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3bolt"

	"github.com/llm-infra/llm-infra-operator/hack/tools/services/internal/serve"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "listen address (host:port, loopback)")
	db := flag.String("db", "s3.bolt", "bolt file that holds the buckets")
	bucket := flag.String("bucket", "", "a bucket to create at start (others are created on first use)")
	flag.Parse()

	backend, err := s3bolt.NewFile(*db)
	if err != nil {
		log.Fatalf("s3fake: open %s: %v", *db, err)
	}
	if *bucket != "" {
		if err := backend.CreateBucket(*bucket); err != nil && !gofakes3.IsAlreadyExists(err) {
			log.Fatalf("s3fake: create bucket %s: %v", *bucket, err)
		}
	}
	faker := gofakes3.New(backend, gofakes3.WithAutoBucket(true), gofakes3.WithoutVersioning())
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("s3fake: %v", err)
	}
	log.Printf("s3fake: serving S3 on http://%s (buckets in %s)", ln.Addr(), *db)
	serve.Until("s3fake", ln, faker.Server())
}
