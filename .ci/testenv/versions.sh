# Pinned versions of the test environment. Bumping one rebuilds only that component:
# every cache entry is keyed by its version (and, for Go binaries, the Go version).
K8S_VERSION=${KERF_K8S_VERSION:-1.36.4}
ETCD_VERSION=${KERF_ETCD_VERSION:-3.6.14}
KWOK_VERSION=${KERF_KWOK_VERSION:-0.8.0}
MOTO_VERSION=${KERF_MOTO_VERSION:-5.2.3}
# helm renders and installs manifests/charts in tests (built from the Go module proxy, helm.sh/helm/v4).
HELM_VERSION=${KERF_HELM_VERSION:-4.3.1}
GO_MIN_VERSION=1.26
GO_TOOLCHAIN_VERSION=1.26.8
KERF_CACHE_DIR=${KERF_CACHE_DIR:-$HOME/.cache/kerf}
# promtool checks the chart's PrometheusRule and the dashboards' PromQL in tests (built from the Go module proxy by
# promtool.sh on first use; Prometheus v3.x is the Go module github.com/prometheus/prometheus v0.3xx).
PROMETHEUS_MODULE_VERSION=${KERF_PROMETHEUS_MODULE_VERSION:-0.316.0}
