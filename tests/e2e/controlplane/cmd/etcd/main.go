// Command etcd is etcd's own server (etcdmain.Main), at the release k8s.io/kubernetes
// v1.37.2 pins, for the e2e control plane.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
