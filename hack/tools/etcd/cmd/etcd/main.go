// Command etcd is the etcd server, built from go.etcd.io/etcd/server/v3 for
// the local live cluster (hack/local-cluster.sh). etcd's own main package
// lives in the root module go.etcd.io/etcd/v3, which drags in etcdctl and
// etcdutl; calling etcdmain.Main directly is all the server needs.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
