#!/bin/bash
# call 227's variants, built on the CPU machine before the call: each a copy
# of call 225's DB (build-dev-bin/tune225.sqlite, its fetched tune.sqlite)
# with the winners of the named trials set by hand, then kgen build.
export KGEN_PATTERNS=$PWD/patterns KGEN_TEMPLATES=$PWD/templates
V=build-dev-bin/var; rm -rf $V /tmp/var; mkdir -p $V /tmp/var
mk() { # name model trial-id...
  n=$1 m=$2; shift 2; cp build-dev-bin/tune225.sqlite /tmp/var/$n.sqlite
  for t in "$@"; do
    sqlite3 /tmp/var/$n.sqlite "update winners set config=(select config from trials where id=$t),
      median_ms=(select median_ms from trials where id=$t), trial_id=$t
      where kernel_id=(select kernel_id from trials where id=$t)"
  done
  build-dev-bin/kgen build examples/$m.pat --arch sm_90 --db /tmp/var/$n.sqlite -o $V/$n -q &&
    rm -f $V/$n/libfused.a
}
mk c0 convnext_block; mk c1 convnext_block 90; mk c2 convnext_block 82; mk c3 convnext_block 69
mk c4 convnext_block 90 69
mk l0 lynxnet2_block; mk l1 lynxnet2_block 12; mk l2 lynxnet2_block 11; mk l3 lynxnet2_block 12 22
