# conform: every target is phony; nothing here downloads anything beyond Go modules.
GO ?= go
PKGS := ./...

.PHONY: all run test bench lint fmt-check vet build serve mutants fuzz clean

all: lint test build

## run: the main job, the whole conformance suite against the bundled reference.
run:
	$(GO) run ./cmd/conform run

## test: every package's tests, race detector on. openapi runs without it:
## its one test is single-threaded, and instrumenting its large test-only
## OpenAPI library costs minutes of build on a cold cache. Two tests run
## (again) without it: the hostile clients at their full 3,000 requests per
## class, and the suite against 28 conformant variants served at once.
test:
	$(GO) test -race -count=1 -timeout 20m $$($(GO) list $(PKGS) | grep -v '/openapi$$')
	$(GO) test -count=1 ./validate/openapi/
	$(GO) test -count=1 -run '^(TestHostileClients|TestCombinedVariantsNeverFail)$$' ./reference/ ./steps/

## bench: the validator's ratio table and the proxy's added latency (one run each, interleaved rounds, medians), then every benchmark with allocations.
bench:
	$(GO) test -run '^$$' -bench '^BenchmarkRatios$$' -benchtime 1x ./validate/
	$(GO) test -run '^$$' -bench '^BenchmarkOverhead$$' -benchtime 1x ./validate/proxy/
	$(GO) test -run '^$$' -bench . -skip '^BenchmarkRatios$$' -benchmem ./validate/ ./reference/

lint: fmt-check vet

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

build:
	$(GO) build -o bin/conform ./cmd/conform

serve:
	$(GO) run ./cmd/conform serve

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzRequest -fuzztime 30s ./validate/
	$(GO) test -run '^$$' -fuzz FuzzServer -fuzztime 30s ./reference/
	$(GO) test -run '^$$' -fuzz FuzzRawRequest -fuzztime 30s ./reference/

clean:
	rm -rf bin
