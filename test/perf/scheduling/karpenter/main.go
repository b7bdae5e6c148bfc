// Command karpenter-solve runs Karpenter's own scheduler (sigs.k8s.io/karpenter, the version in
// go.mod) on an input written by kerf's scheduling bench: the same instance types (capacity,
// allocatable, labels, offerings with prices) and the same pods, so both solvers see one problem.
// It builds the scheduler exactly as Karpenter's scheduling_benchmark_test.go does (fake client,
// real clock, NumConcurrentReconciles(5), one NodePool), times one Solve by wall clock and by
// process CPU (user + system, every thread: Go's GC runs beside the solver), and prints one JSON
// line: nodes, pods placed, pod errors, the hourly price (per NodeClaim the cheapest available
// offering of its options compatible with its requirements, as a lowest-price launch would pay)
// and the most expensive NodeClaim.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"

	v1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	"sigs.k8s.io/karpenter/pkg/operator/logging"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	karpscheduling "sigs.k8s.io/karpenter/pkg/scheduling"
	"sigs.k8s.io/karpenter/pkg/test"
)

type inputOffering struct {
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	Price        float64 `json:"pricePerHour"`
	Available    bool    `json:"available"`
}

type inputType struct {
	Name        string             `json:"name"`
	Labels      map[string]string  `json:"labels"`
	Capacity    map[string]float64 `json:"capacity"`
	Allocatable map[string]float64 `json:"allocatable"`
	Offerings   []inputOffering    `json:"offerings"`
}

type selector struct {
	MatchLabels map[string]string `json:"matchLabels"`
}

type term struct {
	Selector    selector `json:"selector"`
	TopologyKey string   `json:"topologyKey"`
}

type spread struct {
	MaxSkew           int32    `json:"maxSkew"`
	TopologyKey       string   `json:"topologyKey"`
	WhenUnsatisfiable string   `json:"whenUnsatisfiable"`
	Selector          selector `json:"selector"`
}

type inputPod struct {
	UID          string             `json:"uid"`
	Name         string             `json:"name"`
	Labels       map[string]string  `json:"labels"`
	Requests     map[string]float64 `json:"requests"`
	Spread       []spread           `json:"spread"`
	Affinity     []term             `json:"affinity"`
	AntiAffinity []term             `json:"antiAffinity"`
}

type input struct {
	Types []inputType `json:"types"`
	Pods  []inputPod  `json:"pods"`
	// Limits gives the NodePool the benchmark's 10,000,000 CPU / 10,000,000Gi limits. Off for the real
	// catalog: Karpenter reserves each NodeClaim's largest option against limits (up to 24 TiB of
	// memory there), so ~400 NodeClaims exhaust even these and the rest of the pods fail.
	Limits bool `json:"limits"`
}

type claimSummary struct {
	InstanceType string  `json:"instanceType"`
	CapacityType string  `json:"capacityType"`
	Pods         int     `json:"pods"`
	PricePerHour float64 `json:"pricePerHour"`
}

type output struct {
	Nodes         int          `json:"nodes"`
	Placed        int          `json:"placed"`
	Unschedulable int          `json:"unschedulable"`
	PricePerHour  float64      `json:"pricePerHour"`
	WallSeconds   float64      `json:"wallSeconds"`
	CPUSeconds    float64      `json:"cpuSeconds"`
	MinPods       int          `json:"minPods"`
	MaxPods       int          `json:"maxPods"`
	Priciest      claimSummary `json:"priciest"`
}

// quantity turns kerf's numbers (cpu in millicores, everything else in units) into a Quantity.
func quantity(name string, v float64) resource.Quantity {
	if name == "cpu" {
		return *resource.NewMilliQuantity(int64(v), resource.DecimalSI)
	}
	return *resource.NewQuantity(int64(v), resource.BinarySI)
}

func resourceList(m map[string]float64) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range m {
		out[corev1.ResourceName(k)] = quantity(k, v)
	}
	return out
}

func instanceType(t inputType) *cloudprovider.InstanceType {
	offerings := cloudprovider.Offerings{}
	zones, capacityTypes := []string{}, []string{}
	for _, o := range t.Offerings {
		offerings = append(offerings, &cloudprovider.Offering{
			Available: o.Available, Price: o.Price,
			Requirements: karpscheduling.NewLabelRequirements(map[string]string{v1.CapacityTypeLabelKey: o.CapacityType, corev1.LabelTopologyZone: o.Zone}),
		})
		if o.Available {
			zones = append(zones, o.Zone)
			capacityTypes = append(capacityTypes, o.CapacityType)
		}
	}
	reqs := karpscheduling.NewRequirements(
		karpscheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...),
		karpscheduling.NewRequirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, capacityTypes...),
	)
	for k, v := range t.Labels {
		reqs.Add(karpscheduling.NewRequirement(k, corev1.NodeSelectorOpIn, v))
	}
	// kerf's allocatable = capacity − kubelet overhead; Karpenter subtracts Overhead from Capacity.
	overhead := map[string]float64{}
	for k, c := range t.Capacity {
		if a, ok := t.Allocatable[k]; ok && c > a {
			overhead[k] = c - a
		}
	}
	return &cloudprovider.InstanceType{
		Name: t.Name, Requirements: reqs, Offerings: offerings, Capacity: resourceList(t.Capacity),
		Overhead: &cloudprovider.InstanceTypeOverhead{KubeReserved: resourceList(overhead)},
	}
}

func affinityTerms(ts []term) []corev1.PodAffinityTerm {
	out := []corev1.PodAffinityTerm{}
	for _, t := range ts {
		out = append(out, corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: t.Selector.MatchLabels}, TopologyKey: t.TopologyKey})
	}
	return out
}

func pod(p inputPod) *corev1.Pod {
	spreads := []corev1.TopologySpreadConstraint{}
	for _, s := range p.Spread {
		spreads = append(spreads, corev1.TopologySpreadConstraint{
			MaxSkew: s.MaxSkew, TopologyKey: s.TopologyKey, WhenUnsatisfiable: corev1.UnsatisfiableConstraintAction(s.WhenUnsatisfiable),
			LabelSelector: &metav1.LabelSelector{MatchLabels: s.Selector.MatchLabels},
		})
	}
	requests := map[string]float64{}
	for k, v := range p.Requests {
		if k != "pods" { // kerf folds `pods: 1` into requests; Karpenter adds it itself
			requests[k] = v
		}
	}
	return test.Pod(test.PodOptions{
		ObjectMeta:                metav1.ObjectMeta{Name: p.Name, Labels: p.Labels, UID: types.UID(p.UID)},
		PodRequirements:           affinityTerms(p.Affinity),
		PodAntiRequirements:       affinityTerms(p.AntiAffinity),
		TopologySpreadConstraints: spreads,
		ResourceRequirements:      corev1.ResourceRequirements{Requests: resourceList(requests)},
	})
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

func run(in input) (output, error) {
	log.SetLogger(logging.NopLogger)
	ctx := options.ToContext(injection.WithControllerName(context.Background(), "provisioner"), test.Options())
	spec := v1.NodePoolSpec{Limits: v1.Limits{}} // empty, not nil: test.NodePool turns nil into a 2,000-CPU limit
	if in.Limits {
		spec.Limits = v1.Limits{corev1.ResourceCPU: resource.MustParse("10000000"), corev1.ResourceMemory: resource.MustParse("10000000Gi")}
	}
	nodePool := test.NodePool(v1.NodePool{Spec: spec})
	its := []*cloudprovider.InstanceType{}
	for _, t := range in.Types {
		its = append(its, instanceType(t))
	}
	pods := []*corev1.Pod{}
	for _, p := range in.Pods {
		pods = append(pods, pod(p))
	}
	cp := fake.NewCloudProvider()
	cp.InstanceTypes = its
	client := fakecr.NewFakeClient()
	clk := &clock.RealClock{}
	cluster := state.NewCluster(clk, client, cp)
	byPool := map[string][]*cloudprovider.InstanceType{nodePool.Name: its}
	opts := []scheduling.Options{scheduling.NumConcurrentReconciles(5)}
	topology, err := scheduling.NewTopology(ctx, client, cluster, nil, []*v1.NodePool{nodePool}, byPool, pods, opts...)
	if err != nil {
		return output{}, fmt.Errorf("creating topology: %w", err)
	}
	scheduler := scheduling.NewScheduler(ctx, client, []*v1.NodePool{nodePool}, cluster, nil, topology, byPool, nil,
		events.NewRecorder(&record.FakeRecorder{}), clk, nil, nil, opts...)
	cpu0, wall0 := cpuSeconds(), time.Now()
	results, err := scheduler.Solve(ctx, pods)
	out := output{WallSeconds: time.Since(wall0).Seconds(), CPUSeconds: cpuSeconds() - cpu0}
	if err != nil {
		return out, fmt.Errorf("solving: %w", err)
	}
	out.Nodes, out.Unschedulable, out.MinPods = len(results.NewNodeClaims), len(results.PodErrors), len(pods)
	for _, nc := range results.NewNodeClaims {
		// The AWS launch drops exotic types (GPU, accelerator, metal) while an ordinary option is left
		// (filter.go ExoticInstanceType), so that is what a launch pays; kerf's plan is priced the same way.
		var best *cloudprovider.Offering
		var bestType string
		for _, exoticPass := range []bool{false, true} {
			for _, it := range nc.InstanceTypeOptions {
				if isExotic(it) != exoticPass {
					continue
				}
				if o := it.Offerings.Available().Compatible(nc.Requirements).Cheapest(); o != nil && (best == nil || o.Price < best.Price) {
					best, bestType = o, it.Name
				}
			}
			if best != nil {
				break
			}
		}
		if best == nil {
			return out, fmt.Errorf("NodeClaim with %d pods has no available offering", len(nc.Pods))
		}
		out.PricePerHour += best.Price
		out.Placed += len(nc.Pods)
		out.MinPods, out.MaxPods = min(out.MinPods, len(nc.Pods)), max(out.MaxPods, len(nc.Pods))
		if best.Price > out.Priciest.PricePerHour {
			out.Priciest = claimSummary{InstanceType: bestType, CapacityType: best.Requirements.Get(v1.CapacityTypeLabelKey).Any(), Pods: len(nc.Pods), PricePerHour: best.Price}
		}
	}
	return out, nil
}

// isExotic mirrors the AWS provider's exotic test on the labels the bench gives each type.
func isExotic(it *cloudprovider.InstanceType) bool {
	for _, key := range []string{"karpenter.k8s.aws/instance-gpu-count", "karpenter.k8s.aws/instance-accelerator-count"} {
		if it.Requirements.Has(key) && it.Requirements.Get(key).Len() > 0 {
			return true
		}
	}
	size := it.Requirements.Get("karpenter.k8s.aws/instance-size")
	return size.Len() > 0 && strings.Contains(size.Any(), "metal")
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintf(os.Stderr, "reading the input from stdin: %s\n", err)
		os.Exit(2)
	}
	out, err := run(in)
	if err != nil {
		fmt.Fprintf(os.Stderr, "running Karpenter's scheduler: %s\n", err)
		os.Exit(1)
	}
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
}
