package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sirupsen/logrus"
	vklog "github.com/virtual-kubelet/virtual-kubelet/log"
	logruslogger "github.com/virtual-kubelet/virtual-kubelet/log/logrus"
	"github.com/virtual-kubelet/virtual-kubelet/node"
	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"

	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/backoff"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/clusterdns"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/imagetable"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/netx"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/runtime"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/svcproxy"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

type options struct {
	kubeconfig, stateDir, logDir, imageTable       string
	podCIDR, serviceCIDR, clusterDomain, apiserver string
	nodes, forwards                                listFlag
	kubeletPort                                    int
	nodeCPU, nodeMemory, nodePods                  string
	backoffInitial, backoffMax                     time.Duration
	readyFile                                      string
}

func runAgent(args []string) error {
	var o options
	fs := flag.NewFlagSet("realpods-agent", flag.ContinueOnError)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (a system:masters user)")
	fs.StringVar(&o.stateDir, "state-dir", "", "directory for the agent's state (required)")
	fs.StringVar(&o.logDir, "log-dir", "", "directory for container logs (default <state-dir>/logs)")
	fs.StringVar(&o.imageTable, "image-table", "", "the image table (TSV; missing or empty: every pod is simulated)")
	fs.StringVar(&o.podCIDR, "pod-cidr", "127.16.0.0/16", "pod addresses (a loopback range); its first address is the gateway, DNS server and node address")
	fs.StringVar(&o.serviceCIDR, "service-cidr", "127.96.0.0/16", "the API server's --service-cluster-ip-range (a loopback range)")
	fs.StringVar(&o.clusterDomain, "cluster-domain", "cluster.local", "DNS domain of the cluster")
	fs.StringVar(&o.apiserver, "apiserver", "", "host address (ip:port) of the API server, where the `kubernetes` Service leads")
	fs.Var(&o.nodes, "node", "a node to register, NAME or NAME:infra (tainted and labelled node-role.kubernetes.io/infra); repeatable")
	fs.Var(&o.forwards, "forward", "a host port for a Service port, LISTEN=NAMESPACE/SERVICE:PORT (LISTEN a loopback ip:port); repeatable")
	fs.IntVar(&o.kubeletPort, "kubelet-port", 10250, "port of the first node's kubelet API (logs, exec) on the node address; the next nodes take the next ports")
	fs.StringVar(&o.nodeCPU, "node-cpu", "1000", "each node's CPU capacity")
	fs.StringVar(&o.nodeMemory, "node-memory", "4Ti", "each node's memory capacity")
	fs.StringVar(&o.nodePods, "node-pods", "1000", "each node's pod capacity")
	fs.DurationVar(&o.backoffInitial, "crash-backoff-initial", backoff.Default.Initial, "first restart delay after a repeated crash (the kubelet's is 10s)")
	fs.DurationVar(&o.backoffMax, "crash-backoff-max", backoff.Default.Max, "longest restart delay (the kubelet's is 5m)")
	fs.StringVar(&o.readyFile, "ready-file", "", "file written once the nodes are registered and pods are served")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.stateDir == "" {
		return errors.New("--state-dir is required")
	}
	if len(o.nodes) == 0 {
		o.nodes = listFlag{"realpods-node-0"}
	}
	if o.logDir == "" {
		o.logDir = filepath.Join(o.stateDir, "logs")
	}
	logger := log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)
	logrus.SetLevel(logrus.WarnLevel)
	vklog.L = logruslogger.FromLogrus(logrus.NewEntry(logrus.StandardLogger()))

	if err := check(); err != nil {
		return fmt.Errorf("cannot run real pods: %w", err)
	}
	if n, err := runtime.KillLeftovers(o.stateDir); err != nil {
		return err
	} else if n > 0 {
		logger.Printf("killed %d processes left by a previous run", n)
	}
	podIP, podNet, err := net.ParseCIDR(o.podCIDR)
	if err != nil || !podIP.IsLoopback() {
		return fmt.Errorf("--pod-cidr %q must be a loopback range", o.podCIDR)
	}
	svcIP, svcNet, err := net.ParseCIDR(o.serviceCIDR)
	if err != nil || !svcIP.IsLoopback() {
		return fmt.Errorf("--service-cidr %q must be a loopback range", o.serviceCIDR)
	}
	gateway := make(net.IP, 4)
	copy(gateway, podNet.IP.To4())
	gateway[3]++
	table, err := imagetable.Load(o.imageTable)
	if err != nil {
		return err
	}
	var forwards []svcproxy.Forward
	for _, f := range o.forwards {
		fw, err := svcproxy.ParseForward(f)
		if err != nil {
			return err
		}
		forwards = append(forwards, fw)
	}
	allocatable := corev1.ResourceList{}
	for name, v := range map[corev1.ResourceName]string{corev1.ResourceCPU: o.nodeCPU, corev1.ResourceMemory: o.nodeMemory, corev1.ResourcePods: o.nodePods} {
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return fmt.Errorf("node %s %q: %w", name, v, err)
		}
		allocatable[name] = q
	}

	hub, err := netx.NewHub(gateway, podNet, svcNet)
	if err != nil {
		return err
	}
	defer hub.Close()

	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 50, 100
	cfg.UserAgent = "realpods-agent"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()

	factory := informers.NewSharedInformerFactory(client, 10*time.Minute)
	svcInf := factory.Core().V1().Services()
	podInf := factory.Core().V1().Pods()
	secInf := factory.Core().V1().Secrets()
	cmInf := factory.Core().V1().ConfigMaps()
	pvcInf := factory.Core().V1().PersistentVolumeClaims()
	pvInf := factory.Core().V1().PersistentVolumes()
	// Informer() registers each with the factory, which starts only those registered before Start.
	for _, inf := range []cache.SharedIndexInformer{svcInf.Informer(), podInf.Informer(), secInf.Informer(), cmInf.Informer(), pvcInf.Informer(), pvInf.Informer()} {
		_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
	}
	index := &svcproxy.Index{Services: svcInf.Lister(), Pods: podInf.Lister(), APIServer: o.apiserver}
	proxy := &svcproxy.Proxy{Index: index, Hub: hub, NodeIP: gateway.String(), Forwards: forwards, Log: logger}
	defer proxy.Close()
	syncProxy := make(chan struct{}, 1)
	kick := func(any) {
		select {
		case syncProxy <- struct{}{}:
		default:
		}
	}
	_, _ = svcInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: kick, UpdateFunc: func(_, n any) { kick(n) }, DeleteFunc: kick})
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("informer %v did not sync", typ)
		}
	}
	go func() {
		t := time.NewTicker(30 * time.Second)
		defer t.Stop()
		for {
			proxy.Sync()
			select {
			case <-ctx.Done():
				return
			case <-syncProxy:
			case <-t.C:
			}
		}
	}()

	dns := &clusterdns.Server{Domain: o.clusterDomain, Records: index}
	dnsAddr := net.JoinHostPort(gateway.String(), "53")
	if err := serveDNS(ctx, dns, dnsAddr, hub.ListenPacket, hub.Listen); err != nil {
		return fmt.Errorf("DNS in the hub: %w", err)
	}
	// The same server on the host, for people (dig @<gateway>); not needed by anything.
	if err := serveDNS(ctx, dns, dnsAddr, net.ListenPacket, net.Listen); err != nil {
		logger.Printf("DNS on the host at %s: %v (pods are not affected)", dnsAddr, err)
	}

	self, err := os.Executable()
	if err != nil {
		return err
	}
	rt := runtime.New(runtime.Config{
		StateDir: o.stateDir, LogDir: o.logDir, ClaimDir: filepath.Join(o.stateDir, "claims"),
		AgentBinary: self, Table: table, Hub: hub, Spawner: netx.NewSpawner(), IPAM: runtime.NewIPAM(podNet),
		NodeIP: gateway.String(), ClusterDomain: o.clusterDomain,
		Backoff:     backoff.Policy{Initial: o.backoffInitial, Max: o.backoffMax, Reset: backoff.Default.Reset},
		Allocatable: allocatable, Client: client,
		Secrets: secInf.Lister(), ConfigMaps: cmInf.Lister(), Services: svcInf.Lister(),
		PVCs: pvcInf.Lister(), PVs: pvInf.Lister(), Pods: podInf.Lister(), Log: logger,
	})
	defer rt.Shutdown(5 * time.Second)
	// The sweep ends before Shutdown (defers run last first), so that it starts no stop of its own
	// while Shutdown stops every pod.
	sweepCtx, stopSweep := context.WithCancel(ctx)
	swept := make(chan struct{})
	go func() { defer close(swept); rt.SweepOrphans(sweepCtx) }()
	defer func() { stopSweep(); <-swept }()

	eb := record.NewBroadcaster()
	eb.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	defer eb.Shutdown()

	cert, err := selfSignedCert(gateway)
	if err != nil {
		return err
	}
	var ready []<-chan struct{}
	errs := make(chan error, 3*len(o.nodes))
	for i, spec := range o.nodes {
		name, role, _ := strings.Cut(spec, ":")
		port := o.kubeletPort + i
		nodeObj := nodeObject(name, role == "infra", gateway.String(), port, allocatable)
		podInformers := informers.NewSharedInformerFactoryWithOptions(client, 10*time.Minute,
			informers.WithTweakListOptions(func(lo *metav1.ListOptions) {
				lo.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", name).String()
			}))
		nodePods := podInformers.Core().V1().Pods()
		provider := rt.Provider(name)
		pc, err := node.NewPodController(node.PodControllerConfig{
			PodClient: client.CoreV1(), PodInformer: nodePods,
			EventRecorder:  eb.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "realpods", Host: name}),
			Provider:       provider,
			SecretInformer: secInf, ConfigMapInformer: cmInf, ServiceInformer: svcInf,
			SkipDownwardAPIResolution: true,
		})
		if err != nil {
			return err
		}
		podInformers.Start(ctx.Done())
		nc, err := node.NewNodeController(node.NewNaiveNodeProvider(), nodeObj, client.CoreV1().Nodes(),
			node.WithNodeEnableLeaseV1(client.CoordinationV1().Leases(corev1.NamespaceNodeLease), 40))
		if err != nil {
			return err
		}
		go func() { errs <- pc.Run(ctx, 4) }()
		go func() { errs <- nc.Run(ctx) }()
		mux := http.NewServeMux()
		mux.Handle("/", api.PodHandler(api.PodHandlerConfig{
			RunInContainer: provider.RunInContainer, AttachToContainer: provider.AttachToContainer,
			GetContainerLogs: provider.GetContainerLogs, GetPods: provider.GetPods,
			GetStatsSummary: provider.GetStatsSummary, GetMetricsResource: provider.GetMetricsResource,
			PortForward: provider.PortForward,
		}, true))
		srv := &http.Server{Handler: mux, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, ReadHeaderTimeout: 10 * time.Second}
		l, err := net.Listen("tcp", net.JoinHostPort(gateway.String(), strconv.Itoa(port)))
		if err != nil {
			return fmt.Errorf("kubelet API of node %s: %w", name, err)
		}
		go func() { _ = srv.ServeTLS(l, "", "") }()
		defer srv.Close()
		ready = append(ready, pc.Ready(), nc.Ready())
	}
	for _, r := range ready {
		select {
		case <-r:
		case err := <-errs:
			return err
		case <-ctx.Done():
			return nil
		}
	}
	logger.Printf("ready: nodes %s; pods on %s (gateway and DNS %s), Services on %s; %d images run for real",
		strings.Join(o.nodes, " "), podNet, gateway, svcNet, table.Len())
	if o.readyFile != "" {
		if err := os.WriteFile(o.readyFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			return err
		}
		defer os.Remove(o.readyFile)
	}
	select {
	case <-ctx.Done():
		logger.Printf("stopping: every pod's processes")
		return nil
	case err := <-errs:
		return err
	}
}

func serveDNS(ctx context.Context, s *clusterdns.Server, addr string,
	listenPacket func(string, string) (net.PacketConn, error), listen func(string, string) (net.Listener, error)) error {
	pc, err := listenPacket("udp", addr)
	if err != nil {
		return err
	}
	l, err := listen("tcp", addr)
	if err != nil {
		pc.Close()
		return err
	}
	go func() { _ = s.ServeUDP(pc) }()
	go func() { _ = s.ServeTCP(ctx, l) }()
	go func() { <-ctx.Done(); pc.Close(); l.Close() }()
	return nil
}

// nodeObject is a node as kwok's fake nodes look, with the agent's address and kubelet port.
func nodeObject(name string, infra bool, ip string, port int, allocatable corev1.ResourceList) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				"type": "realpods", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
				"kubernetes.io/arch": "amd64", "kubernetes.io/role": "agent",
			},
			Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"},
		},
		Status: corev1.NodeStatus{
			Capacity: allocatable, Allocatable: allocatable,
			Phase:           corev1.NodeRunning,
			Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}, {Type: corev1.NodeHostName, Address: name}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(port)}},
			NodeInfo: corev1.NodeSystemInfo{
				Architecture: "amd64", OperatingSystem: "linux", KubeletVersion: "v1.36.3-realpods",
				ContainerRuntimeVersion: "realpods://0.1",
			},
			Conditions: []corev1.NodeCondition{
				{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "realpods agent is ready"},
				{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory"},
				{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure"},
				{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID"},
				{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionFalse, Reason: "RouteCreated"},
			},
		},
	}
	now := metav1.Now()
	for i := range n.Status.Conditions {
		n.Status.Conditions[i].LastHeartbeatTime, n.Status.Conditions[i].LastTransitionTime = now, now
	}
	if infra {
		n.Labels["node-role.kubernetes.io/infra"] = ""
		n.Spec.Taints = []corev1.Taint{{Key: "node-role.kubernetes.io/infra", Effect: corev1.TaintEffectNoSchedule}}
	}
	return n
}

// selfSignedCert is the kubelet API's serving certificate (the API server does not verify a
// kubelet's certificate unless --kubelet-certificate-authority is set).
func selfSignedCert(ip net.IP) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "realpods-agent"},
		NotBefore:    time.Now().Add(-time.Hour), NotAfter: time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{ip},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
