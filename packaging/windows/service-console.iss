; Inno Setup script: a per-user install of the one-folder build (no administrator rights), a Start-menu
; entry, an optional desktop icon, and an uninstaller. Built by packaging/windows/build.ps1, which passes
;   /DAppVersion=<version> /DSourceDir=<dist\service-console> /DOutputDir=<dist> /DIconFile=<.ico>
#ifndef AppVersion
  #define AppVersion "0.0.0"
#endif
#ifndef SourceDir
  #define SourceDir "..\..\dist\service-console"
#endif
#ifndef OutputDir
  #define OutputDir "..\..\dist"
#endif
#ifndef IconFile
  #define IconFile "..\..\build\icons\service-console.ico"
#endif

[Setup]
AppId={{6B4609E0-0C3A-4A04-B5C0-5E41C0C0A5E1}
AppName=Service Console
AppVersion={#AppVersion}
AppPublisher=Service Console developers
DefaultDirName={localappdata}\Programs\Service Console
DefaultGroupName=Service Console
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
OutputDir={#OutputDir}
OutputBaseFilename=service-console-{#AppVersion}-windows-x64-setup
SetupIconFile={#IconFile}
UninstallDisplayIcon={app}\service-console.exe
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\Service Console"; Filename: "{app}\service-console.exe"
Name: "{group}\{cm:UninstallProgram,Service Console}"; Filename: "{uninstallexe}"
Name: "{autodesktop}\Service Console"; Filename: "{app}\service-console.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\service-console.exe"; Description: "{cm:LaunchProgram,Service Console}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; Settings, keys and the sandbox's data live in the user's profile and the Credential Manager: kept, as
; other apps keep them. Only what the app writes beside itself goes.
Type: filesandordirs; Name: "{app}\_internal\__pycache__"
