# formats/: sources and objects. The writers (trace.json, summary.txt,
# summary.json) and their buffered, crash-safe output; they read the model
# only. Linked into build/libcuprof.so (top Makefile). Tests:
# tests/unit/unit.mk.
FORMATS_SRCS := formats/outbuf.c formats/codec.c formats/units.c formats/formats.c formats/place.c \
                formats/chrome_trace.c formats/chrome_trace_gpu.c formats/gpu_rows.c formats/perfetto.c \
                formats/summary_txt.c formats/summary_json.c \
                formats/flame.c formats/report_html.c formats/html_page.c
FORMATS_OBJS := $(patsubst formats/%.c,$(B)/formats/%.o,$(FORMATS_SRCS)) $(B)/formats/html_assets.o
FORMATS_CFLAGS = $(CFLAGS) -fvisibility=hidden -I.

$(B)/formats/%.o: formats/%.c
	$(call P,CC,$@)mkdir -p $(@D) && $(CC) $(FORMATS_CFLAGS) -c -o $@ $<

# The HTML pages' assets (NAME.report.html, the compare and merged pages;
# formats/html/README.md), built in with .incbin: the pages' code and
# style, and uPlot as npm installed it (scripts/deps.sh:
# npm ci --prefix formats/html; after the deps stamp, so a fresh tree has
# it). Without it the page says its charts are missing (no_uplot.*).
HTML_DIR    := formats/html
UPLOT_DIST  := $(HTML_DIR)/node_modules/uplot/dist
HTML_PAGES  := common report compare merged
$(B)/formats/html_assets.S: formats/formats.mk $(HTML_PAGES:%=$(HTML_DIR)/%.js) $(HTML_DIR)/report.css \
		$(wildcard $(UPLOT_DIST)/uPlot.iife.min.js $(UPLOT_DIST)/uPlot.min.css) $(B)/.deps-ok
	$(call P,GEN,$@)mkdir -p $(@D) && js=$(UPLOT_DIST)/uPlot.iife.min.js css=$(UPLOT_DIST)/uPlot.min.css && \
	  { [ -f $$js ] && [ -f $$css ] || { js=$(HTML_DIR)/no_uplot.js; css=$(HTML_DIR)/no_uplot.css; }; } && { \
	  printf '\t.section .rodata\n'; \
	  for pair in uplot_js:$$js uplot_css:$$css page_css:$(HTML_DIR)/report.css \
	              $(foreach p,$(HTML_PAGES),$(p)_js:$(HTML_DIR)/$(p).js); do \
	    sym=cuprof_html_$${pair%%:*}; file=$(CURDIR)/$${pair#*:}; \
	    printf '\t.globl %s\n\t.hidden %s\n%s:\n\t.incbin "%s"\n\t.byte 0\n' "$$sym" "$$sym" "$$sym" "$$file"; \
	  done; printf '\t.section .note.GNU-stack,"",@progbits\n'; } > $@.tmp && mv $@.tmp $@
$(B)/formats/html_assets.o: $(B)/formats/html_assets.S
	$(call P,AS,$@)$(CC) -c -o $@ $<

ALL_TARGETS += $(FORMATS_OBJS)
