# conform: every target is phony; nothing here downloads anything beyond Go modules,
# but for openapi-tools, which installs the OpenAPI consumers from npm outside the repository.
GO ?= go
PKGS := ./...
# Where openapi-tools installs the npm consumers of the OpenAPI export (outside the repository).
CONFORM_NPM_TOOLS ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/conform/npm-tools
export CONFORM_NPM_TOOLS
CONSUMERS := validate/openapi/testdata/consumers

.PHONY: all run test bench lint fmt-check vet build serve mutants fuzz clean openapi-tools

all: lint test build

## run: the main job, the whole conformance suite against the bundled reference.
run:
	$(GO) run ./cmd/conform run

## test: every package's tests, race detector on. openapi runs without it:
## its tests are single-threaded, and instrumenting its large test-only
## OpenAPI library costs minutes of build on a cold cache; they feed both
## exports to the consumers openapi-tools installs (and to oapi-codegen,
## through go run). Nine tests run (again) without it: the hostile clients at
## their full 3,000 requests per class, the suite against the conformant
## variants served at once, the PostgreSQL file content's allocation bound
## (the race detector's sync.Pool drops buffers at random), and the
## explorer against the reference, every explore fault, every conformant
## variant and the variants combined (its coverage within 10% of the
## reference's is asserted only here: under the race detector its budget is
## too small to compare). Every line runs, whichever
## failed before it; the last line names each that failed. Each line's
## 45-minute timeout is a stall detector, not a budget: on a quiet machine the
## race line takes about 5 minutes; at a load average of 40 on two cores (make test
## beside six other jobs) the steps package ran 20 minutes with no test failed
## until a 20-minute timeout stopped it mid-way.
test: openapi-tools
	@failed=""; \
	step() { echo "+ $$*"; "$$@" || failed="$$failed$$(printf '\n  %s' "$$*")"; }; \
	step $(GO) test -race -count=1 -timeout 45m $$($(GO) list $(PKGS) | grep -v '/openapi$$'); \
	step $(GO) test -count=1 -timeout 45m ./validate/openapi/; \
	step $(GO) test -count=1 -timeout 45m -run '^(TestHostileClients|TestCombinedVariantsNeverFail|TestPostgresFileContentStreams)$$' ./reference/ ./steps/; \
	step $(GO) test -count=1 -timeout 45m -run '^(TestReferenceHasNoFindings|TestExploreCatchesEachFault|TestVariantsNeverFailExplored|TestCombinedVariantsNeverFailExplored|TestPrintedScenarioRuns|TestTimeBoxHolds)$$' ./steps/explore/; \
	if [ -n "$$failed" ]; then echo "make test: FAILED:$$failed"; exit 1; fi; \
	echo "make test: every line passed"

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
	$(GO) test -run '^$$' -fuzz FuzzFastPath -fuzztime 30s ./validate/
	$(GO) test -run '^$$' -fuzz FuzzBodyRulesInPass -fuzztime 30s ./validate/
	$(GO) test -run '^$$' -fuzz FuzzServer -fuzztime 30s ./reference/
	$(GO) test -run '^$$' -fuzz FuzzRawRequest -fuzztime 30s ./reference/

## openapi-tools: the npm consumers of the OpenAPI export, exactly as $(CONSUMERS)/package-lock.json
## pins them, installed into $(CONFORM_NPM_TOOLS); nothing is done when that lockfile is already installed.
openapi-tools:
	@mkdir -p "$(CONFORM_NPM_TOOLS)"
	@if cmp -s $(CONSUMERS)/package-lock.json "$(CONFORM_NPM_TOOLS)/package-lock.json" && [ -d "$(CONFORM_NPM_TOOLS)/node_modules" ]; then \
		echo "openapi-tools: installed in $(CONFORM_NPM_TOOLS)"; \
	else \
		cp $(CONSUMERS)/package.json $(CONSUMERS)/package-lock.json "$(CONFORM_NPM_TOOLS)/" && \
		npm ci --prefix "$(CONFORM_NPM_TOOLS)" --no-audit --no-fund --loglevel=error; \
	fi

clean:
	rm -rf bin
