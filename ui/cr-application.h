/* cr-application.h — the Chainrule application: one window a file. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define CR_TYPE_APPLICATION (cr_application_get_type ())
G_DECLARE_FINAL_TYPE (CrApplication, cr_application, CR, APPLICATION, AdwApplication)

CrApplication *cr_application_new (void);

G_END_DECLS
