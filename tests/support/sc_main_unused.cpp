// libsystemc.so references sc_main from its own main(); the test binary's main comes from
// GoogleTest, so this definition only satisfies the linker and is never called.
extern "C" int sc_main(int, char*[]) { return 1; }
